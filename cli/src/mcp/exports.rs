//! What the MCP server hands back as files: a session's export (a tape and its snapshot,
//! or a Rust test, checked by a replay when asked) and its report, returned as text and
//! written into the artifact directory when the server has one.

use rmcp::model::CallToolResult;
use serde_json::json;
use tuipilot::files::Access;
use tuipilot::tape::export::{test_name, to_rust, to_tape, write_world};

use super::args::TerminalArgs;
use super::{State, artifact_name, fail, structured};
use crate::error::Failure;

impl State {
    /// `export`: the session's operations as a tape (and its snapshot) or a Rust test,
    /// returned as text, and written to the artifact directory when the server has one.
    pub(super) fn export(&self, name: &str, args: &TerminalArgs) -> Result<CallToolResult, Failure> {
        let (rust, mut options) = (args.rust.unwrap_or(false), args.export_options()?);
        let (start, log) = match (&args.from, &self.artifacts) {
            (Some(file), Some(dir)) => {
                let path = dir.path().join(artifact_name(file)?);
                if !path.is_file() {
                    return fail(format!(
                        "from: no recording `{file}` in the artifact directory {}: record one with start's record",
                        dir.path().display()
                    ));
                }
                let recording = tuipilot::record::Recording::read_file(path)?;
                tuipilot::tape::export::from_recording(&recording)?
            }
            (Some(_), None) => {
                return fail(
                    "from needs the server to have an artifact directory (start it with --artifact-dir DIR): recordings are read only there",
                );
            }
            (None, _) => {
                let session = self.session(name)?;
                let start = self
                    .starts
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(name)
                    .cloned()
                    .unwrap_or_default();
                // The world goes beside the export in the artifact directory: without
                // one there is nowhere to hand it back, and none is carried.
                // Files named in `with` go into the fresh HOME besides it, or instead of a
                // world too large to carry.
                let carried =
                    !options.in_place && args.without_world != Some(true) && self.artifacts.is_some();
                match session.world() {
                    Some(Ok(world)) if carried => {
                        options.world = Some((world.map(), world.root().to_path_buf()))
                    }
                    Some(Err(refused)) if carried && options.with.is_empty() => {
                        return Err(tuipilot::files::refused_error(refused).into());
                    }
                    _ => {}
                }
                // What changed since the log's last screen, with no input since, drifted.
                options.screen_now = Some(session.screen_for_export());
                (start, session.operations())
            }
        };
        let options = &options;
        // Checked before anything is returned: the Rust test is spelled from the same
        // steps as the tape.
        let unverified = match args.verify == Some(true) {
            true => tuipilot::tape::export::verify(&start, &log, name, options)?,
            false => None,
        };
        let (text, snapshot, file) = if rust {
            (
                to_rust(&start, &log, &test_name(name), options)?,
                None,
                format!("{name}.rs"),
            )
        } else {
            let exported = to_tape(&start, &log, name, options)?;
            (exported.tape, exported.snapshot, format!("{name}.tape"))
        };
        let mut written = Vec::new();
        if let Some(dir) = &self.artifacts {
            let stem = if rust { test_name(name) } else { name.to_string() };
            if let Some(world) = write_world(options, &stem, dir.path())? {
                written.push(world.display().to_string());
            }
            for (file, contents) in std::iter::once((file, text.clone())).chain(snapshot) {
                let path = dir.write(
                    artifact_name(&file)?.as_ref(),
                    contents.as_bytes(),
                    Access::Private,
                )?;
                written.push(path.display().to_string());
            }
        }
        if let Some(why) = unverified {
            let written = match written.is_empty() {
                true => "nothing was written".to_string(),
                false => format!("written as it is: {}", written.join(", ")),
            };
            return Err(Failure::replay_fails(&why, &written));
        }
        Ok(structured(
            text.clone(),
            json!({ "session": name, "operations": log.len(), "text": text, "written": written }),
        ))
    }

    /// `report`: the session's report as Markdown, and its three files in the artifact
    /// directory (`NAME-report/`) when the server has one.
    pub(super) fn report(&self, name: &str) -> Result<CallToolResult, Failure> {
        let result = self.make_report(name);
        crate::host::return_freed_memory();
        result
    }

    fn make_report(&self, name: &str) -> Result<CallToolResult, Failure> {
        let session = self.session(name)?;
        let mut report = tuipilot::report::RunReport::of_session(&session)?;
        report.title = name.to_string();
        let markdown = report.text(tuipilot::report::ReportFormat::Markdown)?;
        let mut written = Vec::new();
        if let Some(dir) = &self.artifacts {
            let folder = dir.path().join(artifact_name(&format!("{name}-report"))?);
            written = report
                .write_to(&folder)?
                .iter()
                .map(|p| p.display().to_string())
                .collect();
        }
        Ok(structured(
            markdown.clone(),
            json!({ "session": name, "steps": report.steps.len(), "markdown": markdown, "written": written }),
        ))
    }
}
