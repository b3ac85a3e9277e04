//! The `argmend` command line: `argmend repair [FILE]`. See `argmend repair --help`.

#![forbid(unsafe_code)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
