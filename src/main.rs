//! The `tuipilot` binary: see [`cli`].

mod cli;
mod mcp;

fn main() -> std::process::ExitCode {
    cli::main()
}
