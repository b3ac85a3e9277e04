//! The binary's logic: the library does the repairing and runs the tools;
//! this module reads, writes, and turns outcomes into exit codes.
//!
//! Each command is a module of its own (a folder when it has parts), and
//! what several commands use is in `shared/`, below them all: a command
//! imports `shared` and, for `repair --batch`, `batch`, never this file or
//! `args.rs`, so the imports run one way (`tests/layers.rs` checks it).

mod args;
mod batch;
mod call;
mod diff;
mod json;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(feature = "proxy")]
mod proxy;
mod quotes;
mod repair;
mod serve;
mod shared;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use self::args::{Cli, Command};
use self::repair::args::ValuesArg;

/// Parse the command line, run, and map the result to an exit code.
pub(crate) fn main() -> ExitCode {
    let cli = Cli::parse();
    let args = match cli.command {
        Command::Repair(args) => args,
        Command::Diff(args) => return diff::main(args),
        Command::Json(args) => return json::main(args),
        Command::Quotes(args) => return quotes::main(&args),
        Command::Call(args) => return call::main(&args),
        Command::Serve(args) => return serve::main(&args),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => return mcp::main(&args),
        #[cfg(feature = "proxy")]
        Command::Proxy(args) => return proxy::main(&args),
    };
    if args.batch && args.values == ValuesArg::Lines {
        // A batch line holds one value; several values on lines do not fit in it.
        let mut cli = Cli::command();
        cli.build();
        let mut repair = cli.find_subcommand("repair").cloned().unwrap_or(cli);
        repair
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--values lines cannot be used with --batch (use first or array)",
            )
            .exit();
    }
    repair::main(&args)
}
