//! `ajisai-mcp-server`: the MCP server (docs/mcp/). See `ajisai-mcp-server --help`.

/// Every allocation is charged to the execution that made it (`memoryBytes`).
#[global_allocator]
static ALLOCATOR: ajisai_host::memory::Counting = ajisai_host::memory::Counting;

fn main() -> std::process::ExitCode {
    // GMP allocates through the counting allocator from its first block on.
    ajisai_numerics_gmp::route_allocations();
    ajisai_host::memory::install();
    ajisai_host::reaper::install();
    ajisai_server::mcp::main()
}
