//! `argmend quotes FILE [--check]`: typographic quotes standing as
//! delimiters in code files.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::shared::failure::{EXIT_ERROR, report};

/// Shown under `argmend quotes --help`.
macro_rules! quotes_help {
    () => {
        "\
Code files are those with a code extension (.go .py .js .ts .rs .json .yaml
.sh .sql .html .css … in any case) or name (Makefile Dockerfile .gitignore …).
In them, ‘ ’ ′ → ' and “ ” ″ → \" where they stand as the code's delimiters
(print(“hi”) → print(\"hi\")); inside the code's string literals and comments,
HTML text and YAML values they are data and stay. « → << and » → >> only
where one stands alone as an operator (cout « x). .md, .txt, .rst and unknown
files are prose and come back unchanged.

Examples:
  argmend quotes main.go > main.go.fixed
  argmend quotes --check src/app.py      # exit 1 and one line per quote to fix

Exit codes:
  0  the text is printed (or, with --check, nothing to change)
  1  with --check: something would change (each offset is listed on stdout)
  2  usage error, or an input/output error (e.g. FILE cannot be read)"
    };
}

/// Options of `argmend quotes`.
#[derive(Debug, Args)]
#[command(after_help = quotes_help!())]
pub(crate) struct QuotesArgs {
    /// The file to read; its name decides whether it is code.
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,

    /// Print nothing but what would change, one line per character
    /// (`FILE:byte N: “ → "`), and exit 1 if anything would.
    #[arg(long)]
    pub(crate) check: bool,
}

/// What a replaced character became (the table of `argmend::normalize_quotes`).
fn straight(was: char) -> &'static str {
    match was {
        '«' => "<<",
        '»' => ">>",
        '‘' | '’' | '′' => "'",
        _ => "\"",
    }
}

/// Run `argmend quotes`.
pub(super) fn main(args: &QuotesArgs) -> ExitCode {
    let name = args.file.display().to_string();
    let text = match fs::read(&args.file) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => {
                report(&format!("'{name}' is not UTF-8 text"));
                return ExitCode::from(EXIT_ERROR);
            }
        },
        Err(error) => {
            report(&format!("cannot read '{name}': {error}"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let path = args.file.to_string_lossy();
    let fixed = argmend::normalize_quotes(&path, &text);
    let mut out = BufWriter::new(io::stdout().lock());
    let written = if args.check {
        fixed.fixes().iter().try_for_each(|fix| {
            let was = text[fix.offset..].chars().next().unwrap_or('?');
            writeln!(out, "{name}:byte {}: {was} → {}", fix.offset, straight(was))
        })
    } else {
        out.write_all(fixed.text().as_bytes())
    };
    // A closed pipe (`| head`) is not an error.
    if let Err(error) = written.and_then(|()| out.flush())
        && error.kind() != io::ErrorKind::BrokenPipe
    {
        report(&format!("cannot write to stdout: {error}"));
        return ExitCode::from(EXIT_ERROR);
    }
    if args.check && fixed.changed() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
