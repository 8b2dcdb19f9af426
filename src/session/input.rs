//! What a session sends the program: text, keys (encoded for the program's modes at the
//! moment each is pressed), pastes (bracketed when the program asked), mouse and focus
//! events (refused when the program listens for none), secret input (kept out of the
//! recording, the log and the story), resizes and recording markers. Every write goes to
//! the writer thread as one job and is acknowledged, so an error names the call that made it.

use std::panic::Location;
use std::sync::atomic::Ordering;
use std::sync::mpsc;

use portable_pty::PtySize;

use super::builder::pixel_size;
use super::pipeline::WriteJob;
use super::{Caller, Input, Session, shared};
use crate::error::{Error, Result};
use crate::keys::{Focus, Key, encode_paste};

/// A secret send under way (see [`Session::hide_input_if`]): its input is left out of the
/// recording and the session's story until dropped.
pub(crate) struct HiddenInput<'a> {
    session: &'a Session,
    _recording: Option<crate::record::recorder::HiddenInput<'a>>,
}

impl Drop for HiddenInput<'_> {
    fn drop(&mut self) {
        self.session.secret_sends.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Session {
    /// Takes this caller's turn at sending input (see [`InputTurns`]).
    pub(crate) fn input_turn(&self) -> shared::InputTurn<'_> {
        self.turns.take()
    }

    /// Refuses input to a program that has exited or a session that was ended.
    fn check_input(&self, action: &'static str, caller: Caller) -> Result<()> {
        let state = self.shared.lock();
        if state.closed {
            return Err(Error::Closed { action, caller });
        }
        if let Some(status) = state.exit {
            return Err(Error::Exited {
                action,
                status,
                caller,
            });
        }
        Ok(())
    }

    /// Writes bytes to the program in one write and waits until they are written.
    ///
    /// A lone Esc is delivered as a lone Esc: input written after it — in the same send or
    /// a later call — first waits until the program has read the Esc and the timer it armed
    /// then has fired (its escape timeout: vim's 100 ms, ncurses' `ESCDELAY`), at most
    /// [`ESCAPE_SETTLE`](crate::wait::ESCAPE_SETTLE) after the Esc. Bytes that arrive
    /// within a program's escape timeout are read as one key: `Esc` then `*` becomes
    /// Alt+`*`, and the `*` is lost to what was meant.
    fn write(&self, bytes: Vec<u8>, caller: Caller) -> Result<()> {
        self.check_input("send input", caller)?;
        if bytes.is_empty() {
            return Ok(());
        }
        let escape = self.escape_sent.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(sent) = escape {
            super::waiting::let_escape_land(&self.shared, sent);
        }
        if bytes == [0x1b] {
            *self.escape_sent.lock().unwrap_or_else(|p| p.into_inner()) = Some(std::time::Instant::now());
        }
        let len = bytes.len();
        if let Some(recorder) = &self.recorder {
            recorder.input(&bytes);
        }
        // The story a failed test leaves: what was sent (named only if a test fails).
        let secret = self.secret_input || self.secret_sends.load(Ordering::SeqCst) > 0;
        {
            let mut state = self.shared.lock();
            state.story.note_input(&bytes, secret);
            let state = &mut *state;
            let said = state.last_waited.as_deref();
            state
                .learnt
                .note_unprompted(&state.reaction, state.changed_at, said);
            state.reaction.note_input(&bytes);
        }
        let (ack, done) = mpsc::sync_channel(1);
        self.shared.note_queued(len);
        self.jobs.send(WriteJob::Bytes(bytes, Some(ack))).map_err(|_| {
            self.shared.note_written(len);
            Error::Closed {
                action: "send input",
                caller,
            }
        })?;
        match done.recv_timeout(self.timeout) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                self.check_input("send input", caller)?;
                Err(Error::io("writing to the program", e))
            }
            Err(_) => Err(Error::io(
                format!("writing {len} bytes to the program"),
                std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the program is not reading its input; wait for it before sending more",
                ),
            )),
        }
    }

    /// Presses one parsed key, encoded for the program's modes now.
    fn press_key_from(&self, key: Key, caller: Caller) -> Result<()> {
        let modes = self.shared.lock().terminal.key_modes();
        self.write(key.encode(modes), caller)
    }

    /// Sends any input; `caller` is where a direct library call came from (`None` for the
    /// executor, whose errors go to other faces).
    pub(crate) fn send_from(&self, input: &Input, caller: Caller) -> Result<()> {
        match input {
            Input::Text(text) => self.write(text.as_bytes().to_vec(), caller),
            Input::Keys(keys) => keys.iter().try_for_each(|k| self.press_key_from(*k, caller)),
            Input::Paste(text) => {
                let bracketed = self.shared.lock().terminal.bracketed_paste();
                self.write(encode_paste(text, bracketed), caller)
            }
            Input::Bytes(bytes) => self.write(bytes.clone(), caller),
            Input::Mouse(action) => {
                self.check_input("send a mouse action", caller)?;
                let (screen, modes, cell) = {
                    let state = self.shared.lock();
                    let terminal = &state.terminal;
                    (
                        terminal.snapshot(),
                        terminal.input_modes().mouse,
                        terminal.cell_size(),
                    )
                };
                let placing = crate::locate::Placing(&screen);
                for write in action.encode_for(&placing, modes, (cell.width, cell.height))? {
                    self.write(write.bytes, caller)?;
                    if write.press {
                        self.until_read();
                    }
                }
                Ok(())
            }
            Input::Focus(focus) => {
                self.check_input("send a focus event", caller)?;
                if !self.shared.lock().terminal.input_modes().focus_events {
                    return Err(Error::NotListening {
                        input: format!("focus {focus}"),
                        reason:
                            "the program has not enabled focus events (CSI ?1004h), so it would ignore them"
                                .into(),
                    });
                }
                self.write(focus.encode().to_vec(), caller)
            }
        }
    }

    /// Waits until the program has read what was written and waits on the terminal again
    /// — blocked reading it, or polling it with a timer (an ncurses program's window for
    /// telling a click from a press) — for at most the reaction bound; a program that
    /// reads nothing by then is not waited for further. Timers are not waited out: the
    /// next write may land in that window, as a hand's release does.
    pub(crate) fn until_read(&self) {
        let Some(probe) = self.shared.probe() else {
            return;
        };
        let bound = self.shared.lock().reaction_bound;
        let start = std::time::Instant::now();
        while start.elapsed() < bound {
            if matches!(probe.check(), crate::readiness::Readiness::Ready { .. }) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Sends a mouse action (`click 12,3`, `double-click /OK/`, `drag 2,1..9,1`,
    /// `scroll-down 10,5 3`), encoded as the program asked; an error when it enabled no
    /// mouse reporting or the target is not on the screen. A press is held until the
    /// program has read it, as a hand's is: the release follows then.
    #[track_caller]
    pub fn mouse(&self, action: &str) -> Result<()> {
        self.send_from(&Input::mouse(action)?, Some(Location::caller()))
    }

    /// Tells the program its window gained or lost focus; an error when it did not enable
    /// focus events.
    #[track_caller]
    pub fn focus(&self, focus: Focus) -> Result<()> {
        self.send_from(&Input::Focus(focus), Some(Location::caller()))
    }

    /// Sends literal text (no key names; a newline is sent as LF, so press `Enter`).
    #[track_caller]
    pub fn send_text(&self, text: &str) -> Result<()> {
        self.write(text.as_bytes().to_vec(), Some(Location::caller()))
    }

    /// Sends raw bytes, unchanged.
    #[track_caller]
    pub fn send_bytes(&self, bytes: &[u8]) -> Result<()> {
        self.write(bytes.to_vec(), Some(Location::caller()))
    }

    /// Presses a key given by name (`Enter`, `C-c`, `M-x`, `S-Tab`, `q`…), encoded for the
    /// program's modes at this moment.
    #[track_caller]
    pub fn press(&self, key: &str) -> Result<()> {
        self.press_key_from(Key::parse(key)?, Some(Location::caller()))
    }

    /// Presses a parsed key.
    #[track_caller]
    pub fn press_key(&self, key: Key) -> Result<()> {
        self.press_key_from(key, Some(Location::caller()))
    }

    /// Presses keys in order, one write each. All names are checked before any is sent.
    #[track_caller]
    pub fn press_all<I, S>(&self, keys: I) -> Result<()>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let caller = Some(Location::caller());
        let keys: Vec<Key> = keys
            .into_iter()
            .map(|k| Key::parse(k.as_ref()))
            .collect::<Result<_>>()?;
        keys.into_iter().try_for_each(|k| self.press_key_from(k, caller))
    }

    /// Types `text` a character at a time, each once the program has read the last and
    /// waits again (as a mouse press is held): for a program that flushes input typed
    /// ahead (ranger's `flushinput`), which would drop what arrives together.
    #[track_caller]
    pub fn send_text_per_key(&self, text: &str) -> Result<()> {
        let inputs = text.chars().map(|c| Input::Text(c.to_string())).collect();
        self.send_per_key(inputs, Some(Location::caller()))
    }

    /// Sends `inputs` one at a time, each once the program has read the last.
    pub(crate) fn send_per_key(&self, inputs: Vec<Input>, caller: Caller) -> Result<()> {
        for input in inputs {
            self.send_from(&input, caller)?;
            self.until_read();
        }
        Ok(())
    }

    /// Presses keys one at a time, each once the program has read the last (see
    /// [`send_text_per_key`](Self::send_text_per_key)). All names are checked before any
    /// is sent.
    #[track_caller]
    pub fn press_per_key<I, S>(&self, keys: I) -> Result<()>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let inputs = keys
            .into_iter()
            .map(|k| Key::parse(k.as_ref()).map(|key| Input::Keys(vec![key])))
            .collect::<Result<_>>()?;
        self.send_per_key(inputs, Some(Location::caller()))
    }

    /// Pastes text: bracketed (`ESC[200~ … ESC[201~`) if the program enabled it.
    #[track_caller]
    pub fn paste(&self, text: &str) -> Result<()> {
        self.send_from(&Input::Paste(text.to_string()), Some(Location::caller()))
    }

    /// Sends any [`Input`].
    #[track_caller]
    pub fn send(&self, input: &Input) -> Result<()> {
        self.send_from(input, Some(Location::caller()))
    }

    /// Resizes the terminal: the screen first, then the PTY (which signals SIGWINCH).
    #[track_caller]
    pub fn resize(&self, cols: u16, rows: u16) -> Result<()> {
        self.resize_from(cols, rows, Some(Location::caller()))
    }

    /// Resizes; `caller` as for [`send_from`](Self::send_from).
    pub(crate) fn resize_from(&self, cols: u16, rows: u16, caller: Caller) -> Result<()> {
        self.check_input("resize", caller)?;
        {
            let mut state = self.shared.lock();
            let before = state.terminal.size();
            state.terminal.resize(cols, rows)?;
            state.story.note_resize(before, (cols, rows));
            state.reaction.resized_at = Some(std::time::Instant::now());
            // Reflowed, not drawn: the program's frame for this size is still to come.
            state.frame_whole_at = None;
            state.note_screen();
        }
        // A live view redraws at the new size.
        self.shared.notify();
        if let Some(recorder) = &self.recorder {
            recorder.resize(cols, rows);
        }
        let (pixel_width, pixel_height) = pixel_size(cols, rows);
        self.master
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .resize(PtySize {
                rows,
                cols,
                pixel_width,
                pixel_height,
            })
            .map_err(|e| {
                Error::io(
                    "resizing the pseudo-terminal",
                    std::io::Error::other(e.to_string()),
                )
            })
    }

    /// Adds a marker to the session's recording (none without one): a label a player
    /// can jump to and `render --from/--to` can cut at. The executor marks every
    /// operation; the tape runner marks every tape line.
    pub fn add_marker(&self, label: &str) {
        if let Some(recorder) = &self.recorder {
            recorder.marker(label);
        }
    }

    /// Adds an event of tuipilot's own to the recording, if there is one.
    pub(crate) fn record_event(&self, code: &'static str, data: String) {
        if let Some(recorder) = &self.recorder {
            recorder.custom(code, data);
        }
    }

    /// The operations applied to this session through [`apply`](Self::apply) (every face
    /// uses it: the CLI's host, MCP, tapes), oldest first, with their timings, errors and
    /// the screens they saw; what `tuipilot export` turns into a tape or a test. Bounded
    /// ([`MAX_LOGGED`](crate::operation::MAX_LOGGED) operations).
    pub fn operations(&self) -> Vec<crate::operation::LoggedOperation> {
        self.log.entries()
    }

    /// How many operations the log holds, and the bytes of input and of screen text it
    /// keeps for them (bounded: see [`operations`](Self::operations)).
    pub fn operation_log_usage(&self) -> (usize, usize, usize) {
        self.log.usage()
    }

    pub(crate) fn operation_log(&self) -> &crate::operation::OperationLog {
        &self.log
    }

    /// Whether this session is being recorded.
    pub fn is_recording(&self) -> bool {
        self.recorder.is_some()
    }

    /// Whether all of this session's input is secret
    /// ([`SessionBuilder::secret_input`](super::SessionBuilder::secret_input), or a recording without input).
    pub fn input_is_secret(&self) -> bool {
        self.secret_input
    }

    /// Sends `input` as secret input (a password): it reaches the program, but not the
    /// recording, whose marker says `<secret input, N characters>`.
    #[track_caller]
    pub fn send_secret(&self, input: &Input) -> Result<()> {
        let caller = Some(Location::caller());
        if self.is_recording() {
            let placeholder = match input {
                Input::Text(text) | Input::Paste(text) => {
                    crate::operation::secret_placeholder(text.chars().count())
                }
                Input::Bytes(bytes) => crate::operation::secret_placeholder(bytes.len()),
                Input::Keys(keys) => crate::operation::secret_placeholder(keys.len()),
                Input::Mouse(_) | Input::Focus(_) => "secret input".to_string(),
            };
            self.add_marker(&format!("send {placeholder}"));
        }
        let _hidden = self.hide_input_if(true);
        self.send_from(input, caller)
    }

    /// Leaves input out of the recording while the guard lives, when `secret` (or all
    /// input is secret).
    pub(crate) fn hide_input_if(&self, secret: bool) -> Option<HiddenInput<'_>> {
        (secret || self.secret_input).then(|| {
            self.secret_sends.fetch_add(1, Ordering::SeqCst);
            HiddenInput {
                session: self,
                _recording: self.recorder.as_ref().map(|r| r.hide_input()),
            }
        })
    }
}
