//! The `cordon` binary: parse the command line and hand it to the library.

use clap::Parser;

fn main() -> std::process::ExitCode {
    cordon::commands::run(cordon::cli::Cli::parse())
}
