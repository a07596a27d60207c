//! `ajisai-mcp-server`: the MCP server (MCP.md). See `ajisai-mcp-server --help`.

fn main() -> std::process::ExitCode {
    ajisai_server::mcp::main()
}
