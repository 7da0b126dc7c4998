//! The `cordon` binary: parse the command line and hand it to the library.
//! mimalloc is the allocator: the assessor's parse and analysis allocate many small
//! nodes, and it halves what that costs compared with the system allocator (version 2, no
//! huge pages: see Cargo.toml).

use clap::Parser;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cordon::commands::run(cordon::cli::Cli::parse())
}
