//! docs/proxy.md's offline example, run as a reader runs it.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{root, said};

/// docs/proxy.md's "Try it offline", run as written: the `sh` block's three
/// commands (the replay server, the proxy, the client), from the repository,
/// with the `python` block saved as `client.py`; it must print the `text`
/// block after it. Only the ports change (8000, and the proxy's default
/// 8788, become free ones, so parallel runs do not meet), and `python3` is the one of `target/py-venv`, which has the
/// openai SDK.
#[test]
#[ignore = "needs target/py-venv with the openai SDK: run scripts/test"]
fn the_docs_example_prints_what_it_shows() {
    let python = root().join("target/py-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test",
        python.display()
    );
    let doc = std::fs::read_to_string(root().join("docs/proxy.md")).unwrap();
    let (code, shown) = crate::docs::python_block_with_output(&doc, "from openai import")
        .expect("docs/proxy.md has an openai client in Python, with its output");
    let commands = sh_block(&doc, "examples/replay_server.py")
        .expect("docs/proxy.md has a sh block that starts the replay server");
    assert_eq!(commands.len(), 3, "{commands:?}");
    // Two free ports, held together while chosen so they differ.
    let held = [0, 1].map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap());
    let [server_port, proxy_port] = held
        .each_ref()
        .map(|l| l.local_addr().unwrap().port().to_string());
    drop(held);
    let ports = |text: &str| {
        text.replace("8000", &server_port)
            .replace("8788", &proxy_port)
    };
    let dir = crate::support::TempDir::new();
    let client = dir.write("client.py", ports(&code));
    let command = |line: &str| {
        let args = shlex::split(&ports(line)).unwrap();
        let mut command = match args[0].as_str() {
            "argmend" => Command::new(env!("CARGO_BIN_EXE_argmend")),
            "python3" => Command::new(&python),
            other => panic!("docs/proxy.md runs `{other}`"),
        };
        for arg in &args[1..] {
            if arg == "client.py" {
                command.arg(&client);
            } else {
                command.arg(arg);
            }
        }
        // The proxy's default address, 127.0.0.1:8788, moved too.
        if args[0] == "argmend" && !args.iter().any(|a| a == "--listen") {
            command.args(["--listen", &format!("127.0.0.1:{proxy_port}")]);
        }
        command.current_dir(root()).stdin(Stdio::null());
        command
    };
    // The two started with `&`, each killed when the test ends.
    let mut background = Vec::new();
    for (line, port) in commands[..2].iter().zip([&server_port, &proxy_port]) {
        assert!(
            line.ends_with('&'),
            "`{line}` does not run in the background"
        );
        let child = command(line.trim_end_matches('&'))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        background.push(KillOnDrop(child));
        let address = format!("127.0.0.1:{port}");
        let began = Instant::now();
        while std::net::TcpStream::connect(&address).is_err() {
            assert!(
                began.elapsed() < Duration::from_secs(20),
                "`{line}` is not listening on {address}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let out = command(&commands[2]).output().unwrap();
    assert!(
        out.status.success(),
        "the docs' client failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), shown);
    said(
        "proxy sdk: docs/proxy.md's example (replay server, proxy, openai-python client) printed what the page shows",
    );
}

/// The commands of the first ```` ```sh ```` block holding `marker`, each
/// without its comment.
fn sh_block(doc: &str, marker: &str) -> Option<Vec<String>> {
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if line == "```sh" {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            if body.iter().any(|l| l.contains(marker)) {
                let commands = body
                    .iter()
                    .map(|l| l.split(" #").next().unwrap().trim().to_owned())
                    .filter(|l| !l.is_empty())
                    .collect();
                return Some(commands);
            }
        }
    }
    None
}

/// A child process killed and reaped when dropped.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
