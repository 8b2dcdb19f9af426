//! `tuipilot completions SHELL` and `tuipilot man`: shell completion scripts and manual
//! pages, generated from the same clap definitions the command line parses, so they never
//! disagree with it.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use super::args::Cli;
use crate::error::Failure;

// `completions`' and `man`'s arguments.
#[derive(clap::Args)]
pub(super) struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

// `man`'s arguments.
#[derive(clap::Args)]
pub(super) struct ManArgs {
    /// The folder the pages go in (tuipilot.1, tuipilot-start.1, …), made if missing.
    #[arg(short = 'o', long = "output", value_name = "DIR", default_value = ".")]
    output: PathBuf,
}

/// Prints the completion script for `args.shell` (source it, or put it where the shell
/// looks: `tuipilot completions bash > ~/.local/share/bash-completion/completions/tuipilot`).
pub(super) fn completions(args: CompletionsArgs) -> Result<(), Failure> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "tuipilot", &mut script);
    say!("{}", String::from_utf8_lossy(&script).trim_end());
    Ok(())
}

/// Writes a manual page for `tuipilot` and one for each of its commands into the folder.
pub(super) fn man(args: ManArgs) -> Result<(), Failure> {
    let mut command = Cli::command().name("tuipilot").disable_help_subcommand(true);
    command.build();
    let folder = tuipilot::files::Folder::make(&args.output, tuipilot::files::Access::Shared)
        .map_err(|e| Failure::bad_request(format!("man -o {}: {e}", args.output.display())))?;
    let mut written = Vec::new();
    write_pages(&folder, &command, &mut written)?;
    say!("wrote {} pages into {}", written.len(), args.output.display());
    Ok(())
}

/// The pages of `command` and of its commands, depth first; each written whole, never
/// through a link planted at its name.
fn write_pages(
    folder: &tuipilot::files::Folder,
    command: &clap::Command,
    written: &mut Vec<PathBuf>,
) -> Result<(), Failure> {
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(folder, sub, written)?;
    }
    let man = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    man.render(&mut page).map_err(|e| {
        Failure::internal(format!(
            "rendering the manual page of {}: {e}",
            command.get_name()
        ))
    })?;
    let name = man.get_filename();
    let path = folder.write(
        Path::new(&name).as_os_str(),
        &page,
        tuipilot::files::Access::Shared,
    )?;
    written.push(path);
    Ok(())
}
