//! The Playground (README.md "Try it in your browser"; docs/playground.md) over real HTTP:
//! `ajisai playground` alone and `ajisai-mcp-server --http … --playground` beside `/mcp`
//! — its page and documents under their security headers, the run endpoints' guards,
//! its profile against the MCP server's, and the page itself in headless Chromium
//! (`golden/e2e/playground.mjs`, puppeteer-core driving Debian's chromium).

use crate::http_support::{self, HttpServer, TOKEN};
use crate::raw_support;
use serde_json::{json, Value};
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The `ajisai` CLI, which serves the Playground alone.
const CLI: &str = env!("CARGO_BIN_EXE_ajisai");

/// `ajisai playground` running on a free loopback port.
pub struct Alone {
    child: Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
}

impl Alone {
    /// Start `ajisai playground` with `args` and wait for its `playground at` line.
    // The child moves into the returned value, whose `Drop` kills and waits for it.
    #[allow(clippy::zombie_processes)]
    pub fn spawn(args: &[&str]) -> Alone {
        let mut child = Command::new(CLI)
            .arg("playground")
            .args(args)
            .env_remove("AJISAI_NUMERICS")
            .env_remove("AJISAI_NUMERICS_PLUGIN")
            .env_remove("AJISAI_PHRASEBOOK")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("ajisai starts");
        let stdout = child.stdout.take().expect("piped");
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("a line");
        let base = line
            .trim()
            .strip_prefix("playground at ")
            .and_then(|u| u.strip_suffix('/'))
            .unwrap_or_else(|| panic!("the first line names the page: {line:?}"))
            .to_string();
        Alone { child, base }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Alone {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// POST `body` to one of the run endpoints as the page does (JSON, its own origin).
pub async fn run(base: &str, tool: &str, body: Value) -> http_support::Answer {
    post_raw(
        base,
        tool,
        body.to_string(),
        &[("Origin", base), ("Sec-Fetch-Site", "same-origin")],
    )
    .await
}

async fn post_raw(
    base: &str,
    tool: &str,
    body: String,
    headers: &[(&str, &str)],
) -> http_support::Answer {
    let mut request = http_support::client()
        .post(format!("{base}/api/{tool}"))
        .body(body);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        request = request.header("Content-Type", "application/json");
    }
    let response = request.send().await.expect("answered");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.text().await.expect("a body");
    http_support::Answer {
        status,
        headers,
        body,
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

#[test]
fn the_page_and_its_documents_are_served_under_the_security_headers() {
    let pg = Alone::spawn(&[]);
    rt().block_on(async {
        for (path, kind) in [
            ("/", "text/html"),
            ("/playground.js", "text/javascript"),
            ("/playground.css", "text/css"),
            ("/api/info", "application/json"),
            ("/api/words", "application/json"),
            ("/api/examples", "application/json"),
        ] {
            let a = http_support::get(&format!("{}{path}", pg.base), &[]).await;
            assert_eq!(a.status, 200, "{path}: {}", a.body);
            assert!(
                a.header("content-type")
                    .is_some_and(|t| t.starts_with(kind)),
                "{path}"
            );
            let csp = a.header("content-security-policy").unwrap_or_default();
            for needle in [
                "default-src 'none'",
                "script-src 'self'",
                "frame-ancestors 'none'",
                "connect-src 'self'",
            ] {
                assert!(csp.contains(needle), "{path}: {csp}");
            }
            assert!(!csp.contains("unsafe"), "{path}: {csp}");
            assert_eq!(
                a.header("x-content-type-options").as_deref(),
                Some("nosniff")
            );
            assert_eq!(a.header("x-frame-options").as_deref(), Some("DENY"));
        }
        // The page needs nothing from elsewhere and runs no inline script or style.
        for path in ["/", "/playground.js", "/playground.css"] {
            let text = http_support::get(&format!("{}{path}", pg.base), &[])
                .await
                .body;
            assert!(text.len() > 1000, "{path} is the real page");
            let outside = text
                .match_indices("http")
                .map(|(i, _)| &text[i..text.len().min(i + 40)])
                .filter(|u| u.starts_with("http://") || u.starts_with("https://"))
                .filter(|u| !u.starts_with("http://www.w3.org/"))
                .count();
            assert_eq!(outside, 0, "{path} names no outside address");
            if path == "/" {
                assert!(!text.contains(" style=\""), "no inline style");
                assert!(!text.contains("<style"), "no style element");
                for tag in text.split("<script").skip(1) {
                    let open = tag.split('>').next().unwrap_or("");
                    assert!(open.contains("src="), "only script files: <script{open}>");
                }
                assert!(!text.contains(" onclick="), "no inline handlers");
            }
        }
        let info = http_support::get(&format!("{}/api/info", pg.base), &[])
            .await
            .json();
        assert_eq!(info["profile"], "playground");
        assert_eq!(info["profiles"][0]["name"], "playground");
        assert_eq!(info["profiles"][0]["limits"]["executionSteps"], 12_000_000);
        assert_eq!(info["profiles"][0]["limits"]["wallTimeMs"], 10_000);
        assert_eq!(
            info["profiles"][0]["limits"]["memoryBytes"],
            256 * 1024 * 1024
        );
        assert_eq!(info["profiles"][1]["name"], "mcp-local-stdio");
        assert_eq!(info["profiles"][1]["limits"]["executionSteps"], 100_000);
        let words = http_support::get(&format!("{}/api/words", pg.base), &[])
            .await
            .json();
        let families = words["families"].as_array().expect("families");
        let all: Vec<&Value> = families
            .iter()
            .flat_map(|f| f["words"].as_array().into_iter().flatten())
            .collect();
        let map = all.iter().find(|w| w["name"] == "MAP").expect("MAP");
        assert_eq!(map["family"], "higherOrder");
        assert_eq!(map["stackEffect"], "( v code -- w )");
        assert!(map["rules"]
            .as_str()
            .is_some_and(|r| r.contains("isolated") || r.len() > 50));
        assert_eq!(map["examples"][0]["expect"], "[ 2/1 4/1 6/1 ]");
        let add = all.iter().find(|w| w["name"] == "ADD").expect("ADD");
        assert!(add["aliases"]
            .as_array()
            .is_some_and(|a| a.contains(&json!("+"))));
        let mean = all
            .iter()
            .find(|w| w["name"] == "MEAN")
            .expect("the phrasebook's MEAN");
        assert_eq!(mean["phrasebook"], true);
        assert!(mean["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("Arithmetic mean")));
        assert!(mean["contract"]
            .as_str()
            .is_some_and(|c| c.starts_with("#:contract MEAN")));
        assert_eq!(
            all.len(),
            ajisai_core::word::registry().specs().len()
                + families
                    .last()
                    .map_or(0, |f| f["words"].as_array().map_or(0, Vec::len))
        );
        let examples = http_support::get(&format!("{}/api/examples", pg.base), &[])
            .await
            .json();
        let chapters = examples["chapters"].as_array().expect("chapters");
        assert_eq!(chapters.len(), 8);
        assert_eq!(chapters[0]["examples"][0]["source"], "1 2 ADD");
    });
}

#[test]
fn the_run_endpoints_take_json_from_the_page_alone() {
    let pg = Alone::spawn(&[]);
    let base = pg.base.clone();
    rt().block_on(async {
        let ok = run(&base, "compute", json!({"source": "2 3 DIV 1 3 DIV ADD"})).await;
        assert_eq!(ok.status, 200, "{}", ok.body);
        let env = ok.json();
        assert_eq!(env["stackDisplay"], json!(["1/1"]));
        assert_eq!(env["mcp"]["limitProfile"], "playground");
        // No Origin and no Sec-Fetch-Site: not sent by a page (curl, a script).
        let bare = post_raw(&base, "compute", json!({"source": "1"}).to_string(), &[]).await;
        assert_eq!(bare.status, 200, "{}", bare.body);
        for (name, headers) in [
            ("another origin", vec![("Origin", "http://evil.example")]),
            ("another port", vec![("Origin", "http://127.0.0.1:1")]),
            ("a null origin", vec![("Origin", "null")]),
            ("a cross-site fetch", vec![("Sec-Fetch-Site", "cross-site")]),
            ("a same-site fetch", vec![("Sec-Fetch-Site", "same-site")]),
        ] {
            let a = post_raw(
                &base,
                "compute",
                json!({"source": "1"}).to_string(),
                &headers,
            )
            .await;
            assert_eq!(a.status, 403, "{name}: {}", a.body);
            assert!(
                a.json()["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("Forbidden")),
                "{name}"
            );
        }
        let form = post_raw(
            &base,
            "compute",
            "source=1".into(),
            &[("Content-Type", "application/x-www-form-urlencoded")],
        )
        .await;
        assert_eq!(form.status, 415, "{}", form.body);
        let not_json = post_raw(&base, "compute", "{".into(), &[]).await;
        assert_eq!(not_json.status, 400, "{}", not_json.body);
        let not_object = post_raw(&base, "compute", "[1]".into(), &[]).await;
        assert_eq!(not_object.status, 400, "{}", not_object.body);
        // The tool validates its arguments itself, as over MCP.
        let unknown = run(&base, "compute", json!({"source": "1", "sauce": 2})).await;
        assert_eq!(unknown.status, 200);
        assert_eq!(unknown.json()["error"]["code"], "invalidRequest");
        let missing = run(&base, "check", json!({"words": []})).await;
        assert_eq!(missing.json()["error"]["code"], "invalidRequest");
        // The phrasebook's Words, requested as over MCP.
        let mean = run(
            &base,
            "compute",
            json!({"source": "[ 1 2 3 4 ] MEAN", "words": ["MEAN"]}),
        )
        .await;
        assert_eq!(mean.json()["stackDisplay"], json!(["5/2"]));
        assert_eq!(mean.json()["prelude"][0]["name"], "MEAN");
        let check = run(&base, "check", json!({"source": "1 DUP"})).await.json();
        assert_eq!(check["error"]["word"], "DUP");
        assert_eq!(check["error"]["column"], 3);
        // A body declared larger than any source is refused before it is read.
        let huge = http_support::client()
            .post(format!("{base}/api/compute"))
            .header("Content-Type", "application/json")
            .header("Content-Length", (64u64 << 20).to_string())
            .body("{}")
            .send()
            .await;
        if let Ok(r) = huge {
            assert_eq!(r.status().as_u16(), 413);
        }
        // Host validation, as on /mcp: DNS rebinding cannot reach the page.
        for path in ["/", "/api/info"] {
            let a = http_support::get(&format!("{base}{path}"), &[("Host", "evil.example")]).await;
            assert_eq!(a.status, 403, "{path}");
        }
        let a = post_raw(&base, "compute", "{}".into(), &[("Host", "evil.example")]).await;
        assert_eq!(a.status, 403);
        // Only the methods each route has.
        let put = http_support::client()
            .put(format!("{base}/api/compute"))
            .send()
            .await
            .expect("answered");
        assert_eq!(put.status().as_u16(), 405);
        let get = http_support::get(&format!("{base}/api/compute"), &[]).await;
        assert_eq!(get.status, 405);
    });
}

#[test]
fn the_playground_runs_what_the_mcp_profile_refuses_and_survives_a_memory_bomb() {
    let pg = Alone::spawn(&[]);
    let mcp = HttpServer::spawn(&[], &[]);
    rt().block_on(async {
        let program = "0 100001 RANGE LENGTH";
        let page = run(&pg.base, "compute", json!({"source": program}))
            .await
            .json();
        assert_eq!(page["stackDisplay"], json!(["100002/1"]), "{page}");
        let served = http_support::call(&mcp, "compute", json!({"source": program})).await;
        let served: Value =
            serde_json::from_str(&http_support::envelope_text(&served)).expect("JSON");
        assert_eq!(served["error"]["category"], "resourceLimitExceeded");
        assert_eq!(served["error"]["resource"], "materializedElements");
        let bomb = run(
            &pg.base,
            "compute",
            json!({"source": "0 999999 RANGE { 0 999 RANGE } MAP"}),
        )
        .await
        .json();
        assert_eq!(bomb["status"], "hostError", "{bomb}");
        assert_eq!(bomb["error"]["code"], "memoryExhausted");
        assert_eq!(bomb["error"]["limit"], "memoryBytes");
        assert!(bomb["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("268435456")));
        let peak = raw_support::proc_status_kib(pg.pid(), "VmHWM:");
        assert!(
            peak < 400 * 1024,
            "the bomb was stopped near its 256 MiB: peak {peak} KiB"
        );
        let next = run(&pg.base, "compute", json!({"source": "1 1 ADD"}))
            .await
            .json();
        assert_eq!(next["stackDisplay"], json!(["2/1"]));
    });
}

#[test]
fn beside_mcp_the_playground_needs_no_token_while_mcp_and_metrics_keep_theirs() {
    let server = HttpServer::spawn(&["--playground"], &[("AJISAI_HTTP_TOKEN", TOKEN)]);
    let base = server.base.clone();
    rt().block_on(async {
        let page = http_support::get(&format!("{base}/"), &[]).await;
        assert_eq!(page.status, 200);
        assert!(page.header("content-security-policy").is_some());
        let a = run(&base, "compute", json!({"source": "0 100001 RANGE LENGTH"}))
            .await
            .json();
        assert_eq!(a["mcp"]["limitProfile"], "playground");
        assert_eq!(a["stackDisplay"], json!(["100002/1"]));
        let refused = http_support::post(
            &server.mcp(),
            http_support::tools_call(json!(1), "compute", json!({"source": "1"})),
            &[],
        )
        .await;
        assert_eq!(refused.status, 401);
        let metrics = http_support::get(&format!("{base}/metrics"), &[]).await;
        assert_eq!(metrics.status, 401);
        let bearer = format!("Bearer {TOKEN}");
        let served = http_support::post(
            &server.mcp(),
            http_support::tools_call(
                json!(1),
                "compute",
                json!({"source": "0 100001 RANGE LENGTH"}),
            ),
            &[
                ("Authorization", &bearer),
                ("MCP-Protocol-Version", "2025-06-18"),
            ],
        )
        .await;
        let served: Value =
            serde_json::from_str(&http_support::envelope_text(&served.json())).expect("JSON");
        assert_eq!(served["mcp"]["limitProfile"], "mcp-remote-http");
        assert_eq!(served["error"]["resource"], "materializedElements");
        // One set of metrics: the page's run is counted with the agent's.
        let metrics =
            http_support::get(&format!("{base}/metrics"), &[("Authorization", &bearer)]).await;
        let counted: u64 = metrics
            .body
            .lines()
            .filter(|l| l.starts_with("ajisai_tool_calls_total") && l.contains("tool=\"compute\""))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum();
        assert!(counted >= 2, "both calls are counted: {}", metrics.body);
    });
    // The page's requests are in the request log, with what they ran.
    let logged = server.stderr_lines_with("path=/api/compute", 1);
    assert!(
        logged[0].contains("tool=compute") && logged[0].contains("outcome=ok"),
        "{logged:?}"
    );
}

#[test]
fn the_playground_is_off_unless_asked_for() {
    let server = HttpServer::spawn(&[], &[]);
    rt().block_on(async {
        let page = http_support::get(&format!("{}/", server.base), &[]).await;
        assert_eq!(page.status, 404);
        let a = post_raw(
            &server.base,
            "compute",
            json!({"source": "1"}).to_string(),
            &[],
        )
        .await;
        assert_eq!(a.status, 404);
    });
    let out = Command::new(http_support::BIN)
        .args(["--playground"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "--playground needs --http");
}

#[test]
fn the_cli_serves_the_playground_and_refuses_bad_settings() {
    let out = Command::new(CLI)
        .args(["playground", "--allowed-host", "a/b"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allowed-host"));
    let out = Command::new(CLI)
        .args(["playground", "--http", "nowhere"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let help = Command::new(CLI).arg("--help").output().expect("runs");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("playground"), "{help}");
    let line = help
        .lines()
        .find(|l| l.trim_start().starts_with("executionSteps"))
        .unwrap_or_else(|| panic!("the profile table: {help}"));
    let cells: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(cells, ["executionSteps", "12000000", "100000", "12000000"]);
    let pg = Alone::spawn(&["--http", "127.0.0.1:0"]);
    assert!(pg.base.starts_with("http://127.0.0.1:"));
}

/// Every behaviour of the page, in headless Chromium: `golden/e2e/playground.mjs` drives
/// Debian's chromium with puppeteer-core (pinned in golden/e2e/package.json) against
/// `ajisai-mcp-server --http … --playground`, so the MCP refusal of the same program is
/// asked of the same process. Screenshots go to `target/playground-screenshots/`.
#[test]
fn the_page_works_in_a_real_browser() {
    let e2e = Path::new(env!("CARGO_MANIFEST_DIR")).join("../golden/e2e");
    assert!(
        e2e.join("node_modules/puppeteer-core").is_dir(),
        "puppeteer-core is not installed: run `npm ci --prefix golden/e2e` (scripts/test does)"
    );
    let chromium = std::env::var("AJISAI_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        Path::new(&chromium).exists(),
        "no Chromium at {chromium}: install Debian's chromium (scripts/test does) or set AJISAI_CHROMIUM"
    );
    // Alone: no golden call may reach its deadline while Chromium keeps the cores busy.
    let _alone = crate::mcp_support::CPU_HEAVY
        .write()
        .unwrap_or_else(|p| p.into_inner());
    let server = HttpServer::spawn(&["--playground"], &[]);
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/playground-screenshots");
    std::fs::create_dir_all(&shots).expect("a screenshot directory");
    let out = Command::new("node")
        .current_dir(&e2e)
        .arg("playground.mjs")
        .arg(format!("{}/", server.base))
        .arg(server.mcp())
        .arg(&shots)
        .env("AJISAI_CHROMIUM", &chromium)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or("");
    let summary: Value = serde_json::from_str(last).unwrap_or_else(|e| {
        panic!(
            "no summary line ({e}):\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(
        summary["ok"],
        true,
        "{summary}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success());
    let checks = summary["checks"].as_array().map_or(0, Vec::len);
    assert!(checks >= 20, "every check ran: {summary}");
}

/// Holds every call's slot until released (the MCP server's test hook).
struct Hold(std::sync::Mutex<std::sync::mpsc::Receiver<()>>);

impl ajisai_service::config::Hooks for Hold {
    fn before_run(&self, _source: &str, _interrupt: &ajisai_core::limits::InterruptFlag) {
        let release = self.0.lock().expect("the hook's channel");
        let _ = release.recv_timeout(std::time::Duration::from_secs(30));
    }
}

/// Beside `/mcp` the page's runs have slots of their own (`--playground-slots`): with
/// `/mcp`'s one slot held by an agent's call, the page's runs answer at once, and the
/// agent's call is answered when its hook lets it go.
#[test]
fn beside_mcp_the_playground_has_slots_of_its_own() {
    use ajisai_server::playground::{Access, Playground};
    use ajisai_service::config::{ServerOptions, Transport};
    use ajisai_service::AjisaiServer;
    use std::sync::Arc;
    use tokio_util::sync::CancellationToken;
    ajisai_host::backend::link();
    let (release, held) = std::sync::mpsc::channel();
    let options = ServerOptions::serving(Transport::Http, 1)
        .with_hooks(Arc::new(Hold(std::sync::Mutex::new(held))));
    let server = AjisaiServer::new(options);
    let page = Playground::beside(&server, 2, Access::default());
    assert_eq!(page.server().executor().options.profile.name, "playground");
    assert_eq!(page.server().executor().options.slots(), 2);
    assert!(!Arc::ptr_eq(
        server.executor().gate(),
        page.server().executor().gate()
    ));
    rt().block_on(async {
        let agent = {
            let server = server.clone();
            tokio::spawn(async move {
                ajisai_server::mcp::protocol::handler::call(
                    &server,
                    "compute",
                    Some(&json!({"source": "1"})),
                    CancellationToken::new(),
                )
                .await
            })
        };
        while server.executor().gate().available() > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let page_run = |source: &'static str| {
            let page = Arc::clone(&page);
            async move {
                ajisai_server::mcp::protocol::handler::call(
                    page.server(),
                    "compute",
                    Some(&json!({ "source": source })),
                    CancellationToken::new(),
                )
                .await
                .and_then(|r| r.structured_content)
                .expect("an answer")
            }
        };
        for _ in 0..4 {
            let answered = page_run("2").await;
            assert_eq!(answered["stackDisplay"], json!(["2/1"]), "{answered}");
            assert_eq!(answered["mcp"]["limitProfile"], "playground");
        }
        release.send(()).expect("the hook waits");
        let done = agent
            .await
            .expect("joins")
            .and_then(|r| r.structured_content)
            .expect("an answer");
        assert_eq!(done["stackDisplay"], json!(["1/1"]));
    });
}

/// The Playground's host limits hold on its path, each just under and just over an
/// injected value (the declared ones are 10 s and 4 MiB): a run past `wallTimeMs` answers
/// `timeout` naming the limit, a result past `responseBytes` is refused, and a run
/// within both answers.
#[test]
fn the_playground_profile_host_limits_hold_on_its_path() {
    use ajisai_core::Limit;
    use ajisai_server::playground::{Access, Playground};
    use ajisai_service::config::ServerOptions;
    use ajisai_service::AjisaiServer;
    use tokio_util::sync::CancellationToken;
    ajisai_host::backend::link();
    let page = |limit: Limit, value: u64| {
        let options = ServerOptions::playground(4).with_limit(limit, value);
        Playground::new(AjisaiServer::new(options), Access::default())
    };
    let run = |page: &std::sync::Arc<Playground>, source: &str| {
        rt().block_on(ajisai_server::mcp::protocol::handler::call(
            page.server(),
            "compute",
            Some(&json!({ "source": source })),
            CancellationToken::new(),
        ))
        .and_then(|r| r.structured_content)
        .expect("an answer")
    };
    // Unpriced comparisons: a run that lasts until the deadline stops it.
    let long = "{ KEEP 5 < LENGTH [ ] BIND [ ] BIND F } 'F' DEF 0 99999 RANGE F";
    let timed = run(&page(Limit::WallTimeMs, 200), long);
    assert_eq!(timed["error"]["code"], "timeout", "{timed}");
    assert_eq!(timed["error"]["limit"], "wallTimeMs");
    assert_eq!(timed["mcp"]["limitProfile"], "playground");
    let quick = run(&page(Limit::WallTimeMs, 60_000), "0 99 RANGE SUM");
    assert_eq!(quick["stackDisplay"], json!(["4950/1"]));
    // Output is never elided: 3,000 lines of 40 characters, ~130 KB in each of the
    // result's two forms (its text and its structured content).
    let printing = "0 2999 RANGE { 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' PRINT } MAP LENGTH";
    let refused = run(&page(Limit::ResponseBytes, 100_000), printing);
    assert_eq!(
        refused["error"]["code"], "responseTooLarge",
        "{}",
        refused["error"]
    );
    let delivered = run(&page(Limit::ResponseBytes, 400_000), printing);
    assert_eq!(
        delivered["stackDisplay"],
        json!(["3000/1"]),
        "{}",
        delivered["error"]
    );
}

/// Every example of the Examples menu (`GET /api/examples`: the tutorial's programs with
/// their stated answers, which the menu shows) answers on the page's own profile what it
/// says: a value as its stack line, a NIL with its reason, an error by its category.
#[test]
fn every_example_answers_on_the_page_what_its_menu_says() {
    let pg = Alone::spawn(&[]);
    rt().block_on(async {
        let doc = http_support::get(&format!("{}/api/examples", pg.base), &[])
            .await
            .json();
        let mut checked = 0;
        let mut wrong = Vec::new();
        for chapter in doc["chapters"].as_array().expect("chapters") {
            for ex in chapter["examples"].as_array().expect("examples") {
                let Some(expect) = ex["expect"].as_str() else {
                    continue;
                };
                let source = ex["source"].as_str().expect("a source");
                let got = run(&pg.base, "compute", json!({ "source": source }))
                    .await
                    .json();
                let slots: Vec<&str> = got["stackDisplay"]
                    .as_array()
                    .map(|s| s.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let line = if slots.is_empty() {
                    "(empty)".to_string()
                } else {
                    slots.join(" | ")
                };
                let holds = if let Some(category) = expect.strip_prefix("error:") {
                    got["status"] == "error" && got["error"]["category"] == category
                } else if let Some((stack, reason)) = expect
                    .strip_suffix(')')
                    .and_then(|e| e.rsplit_once(" (nil:"))
                {
                    got["status"] == "ok"
                        && line == stack
                        && got["outcome"] == format!("nil:{reason}")
                } else {
                    got["status"] == "ok" && line == expect
                };
                checked += 1;
                if !holds {
                    wrong.push(format!(
                        "{} / {}: `{source}` says {expect}, the page answers {} {} {line}",
                        chapter["title"], ex["title"], got["status"], got["outcome"]
                    ));
                }
            }
        }
        assert!(checked > 150, "the examples were run ({checked})");
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    });
}

/// A program that runs until the Playground's deadline (10 s) stops it.
const UNTIL_THE_DEADLINE: &str = "{ KEEP 5 < LENGTH [ ] BIND [ ] BIND F } 'F' DEF 0 99999 RANGE F";

/// Send a run of [`UNTIL_THE_DEADLINE`] as the page does, over a connection of its own
/// that the caller closes to stop the run (what the page's Stop button does: it aborts
/// its `fetch`, and the browser closes the request's connection).
async fn start_a_long_run(base: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let authority = base.trim_start_matches("http://");
    let body = json!({ "source": UNTIL_THE_DEADLINE }).to_string();
    let request = format!(
        "POST /api/compute HTTP/1.1\r\nHost: {authority}\r\nOrigin: {base}\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(authority)
        .await
        .expect("connects");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("the request is sent");
    stream
}

/// The Stop button (issue 36): a run whose page hangs up is stopped on the server — its
/// engine stops and its slot is given back long before its deadline — with thread
/// isolation (`ajisai playground`'s, checked on the gate itself) and with process
/// isolation beside `/mcp` (checked on `/metrics` and by the next run on the one slot).
#[test]
fn a_run_whose_page_hangs_up_is_stopped_and_gives_its_slot_back() {
    use ajisai_server::playground::{Access, Playground};
    use ajisai_service::config::ServerOptions;
    use ajisai_service::AjisaiServer;
    use std::time::{Duration, Instant};
    use tokio_util::sync::CancellationToken;
    ajisai_host::backend::link();
    let deadline = Duration::from_secs(10);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");

    // Thread isolation, one slot: the slot is held until the engine has stopped.
    let loopback = Access {
        allowed_hosts: ajisai_server::web::LOOPBACK_HOSTS
            .iter()
            .map(|h| h.to_string())
            .collect(),
        allowed_origins: Vec::new(),
    };
    let page = Playground::new(AjisaiServer::new(ServerOptions::playground(1)), loopback);
    let gate = std::sync::Arc::clone(page.server().executor().gate());
    let stopped_after = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let shutdown = CancellationToken::new();
        tokio::spawn(ajisai_server::web::serve(
            listener,
            page.router(),
            None,
            16,
            shutdown.clone(),
            Duration::from_secs(1),
            || {},
        ));
        let connection = start_a_long_run(&base).await;
        let started = Instant::now();
        while gate.available() > 0 {
            assert!(started.elapsed() < deadline, "the run never took its slot");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(gate.available(), 0, "the run still holds its slot");
        let hung_up = Instant::now();
        drop(connection);
        while gate.available() == 0 {
            assert!(
                hung_up.elapsed() < deadline / 2,
                "the slot was not given back when the page hung up"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let stopped_after = hung_up.elapsed();
        let after = run(&base, "compute", json!({"source": "6 7 *"})).await;
        assert_eq!(
            after.json()["stackDisplay"],
            json!(["42/1"]),
            "{}",
            after.body
        );
        shutdown.cancel();
        stopped_after
    });
    eprintln!("thread isolation: the slot came back {stopped_after:?} after the hang-up");

    // Process isolation beside /mcp, one slot for the page.
    let server = HttpServer::spawn(&["--playground", "--playground-slots", "1"], &[]);
    let in_flight = |metrics: &str| -> Option<u64> {
        metrics
            .lines()
            .find(|l| l.starts_with("ajisai_executions_in_flight "))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
    };
    runtime.block_on(async {
        let metrics_url = format!("{}/metrics", server.base);
        let connection = start_a_long_run(&server.base).await;
        let started = Instant::now();
        loop {
            let m = http_support::get(&metrics_url, &[]).await;
            if in_flight(&m.body) == Some(1) {
                break;
            }
            assert!(
                started.elapsed() < deadline,
                "the run never started: {}",
                m.body
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let busy = run(&server.base, "compute", json!({"source": "1"})).await;
        assert_eq!(
            busy.json()["error"]["code"],
            "capacityExhausted",
            "the page's one slot is taken: {}",
            busy.body
        );
        let hung_up = Instant::now();
        drop(connection);
        loop {
            let m = http_support::get(&metrics_url, &[]).await;
            if in_flight(&m.body) == Some(0) {
                break;
            }
            assert!(
                hung_up.elapsed() < deadline / 2,
                "the worker still runs the abandoned program: {}",
                m.body
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        eprintln!(
            "process isolation: nothing in flight {:?} after the hang-up",
            hung_up.elapsed()
        );
        let after = run(&server.base, "compute", json!({"source": "6 7 *"})).await;
        assert_eq!(
            after.json()["stackDisplay"],
            json!(["42/1"]),
            "{}",
            after.body
        );
        // The worker stopped when told to: nobody had to kill or replace it.
        let m = http_support::get(&metrics_url, &[]).await.body;
        for line in [
            "ajisai_worker_kills_total{reason=\"deadline\"} 0",
            "ajisai_worker_deaths_total{cause=\"crashed\"} 0",
        ] {
            assert!(m.lines().any(|l| l == line), "{line} in {m}");
        }
    });
}

/// A large result (issue 36): the page's run answers what an agent gets — an elided
/// Vector with its first and last elements — and the page's Show all (`"whole": true`)
/// lets the stack fill the response limit, so `1 10000 RANGE` arrives whole; what the
/// response limit cannot hold stays elided, with its preview, in both process and
/// thread isolation. `whole` is the page's member, refused when it is not a Boolean.
#[test]
fn a_large_result_shows_its_ends_and_all_of_it_on_request() {
    let alone = Alone::spawn(&[]);
    let beside = HttpServer::spawn(&["--playground"], &[]);
    rt().block_on(async {
        for base in [&alone.base, &beside.base] {
            let first = run(base, "compute", json!({"source": "1 10000 RANGE"})).await;
            let env = first.json();
            let slot = &env["stack"][0];
            assert_eq!(slot["elided"]["elements"], 10_000, "{}", first.body);
            assert_eq!(slot["elided"]["head"][0]["value"]["numerator"], "1");
            assert_eq!(slot["elided"]["tail"][4]["value"]["numerator"], "10000");

            let all = run(
                base,
                "compute",
                json!({"source": "1 10000 RANGE", "whole": true}),
            )
            .await;
            let env = all.json();
            assert!(env.get("stackElided").is_none(), "{}", &all.body[..300]);
            let items = env["stack"][0]["value"]
                .as_array()
                .expect("the whole Vector");
            assert_eq!(items.len(), 10_000);
            assert_eq!(items[9_999]["value"]["numerator"], "10000");
            let shown = env["stackDisplay"][0].as_str().expect("its display");
            assert!(shown.starts_with("[ 1/1 2/1 ") && shown.ends_with(" 10000/1 ]"));

            // 100,000 elements (~7 MB) do not fit the 4 MiB response even whole.
            let huge = run(
                base,
                "compute",
                json!({"source": "0 99999 RANGE", "whole": true}),
            )
            .await;
            let env = huge.json();
            assert_eq!(env["status"], "ok", "{}", huge.body);
            assert_eq!(env["stack"][0]["elided"]["elements"], 100_000);
            assert_eq!(
                env["stack"][0]["elided"]["tail"][4]["value"]["numerator"],
                "99999"
            );
            let budget = env["stackElided"]["budgetBytes"]
                .as_u64()
                .expect("a budget");
            assert!(budget > 450_560, "the whole run's budget is {budget}");

            for wrong in [json!("yes"), json!(1), json!(null)] {
                let refused = run(base, "compute", json!({"source": "1", "whole": wrong})).await;
                assert_eq!(refused.status, 400, "{wrong}: {}", refused.body);
                assert!(refused.body.contains("whole"), "{}", refused.body);
            }
            let unwhole = run(base, "compute", json!({"source": "1", "whole": false})).await;
            assert_eq!(unwhole.json()["stackDisplay"], json!(["1/1"]));
        }
    });
}
