//! The kitty graphics protocol (`ESC _ G keys ; payload ESC \`), as kitty answers it.
//!
//! Transmission is direct (`t=d`, base64 in the command, chunked with `m=1`), as RGB
//! (`f=24`, with `s`/`v`), RGBA (`f=32`) or PNG (`f=100`), optionally zlib-compressed
//! (`o=z`); files, temporary files and shared memory (`t=f/t/s`) are refused with an
//! error, so a program falls back to direct transmission. Actions: transmit (`a=t`),
//! transmit and display (`a=T`), display (`a=p`, with `c`/`r` cell sizes, a source
//! rectangle `x,y,w,h`, `z`, `C=1` to keep the cursor), delete (`a=d` by every `d` key
//! kitty defines but animation frames), and query (`a=q`: checked, answered, not kept).
//! Replies go to commands that carry an id (`i`) or number (`I`), as kitty's do; `q=1`
//! silences OKs and `q=2` errors too. Animation commands are refused with an error.

use std::collections::HashMap;
use std::sync::Arc;

use super::{
    Answer, Context, CursorAfter, Graphics, ImageProtocol, KittyOutcome, MAX_IMAGE_PIXELS, MAX_IMAGE_STRING,
    Picture, Shown, base64_decode, drawn_size,
};

/// kitty's stored images and the transmission in progress.
#[derive(Default)]
pub(super) struct Store {
    images: HashMap<u32, Stored>,
    /// The first chunk's command and the data so far (`None` once a chunk was not
    /// base64), while `m=1` chunks arrive.
    pending: Option<(Command, Option<Vec<u8>>)>,
    /// Ids handed out to images sent with a number (`I`) and no id.
    next_auto_id: u32,
}

struct Stored {
    picture: Arc<Picture>,
    number: u32,
    serial: u64,
}

impl Store {
    pub(super) fn memory(&self) -> usize {
        self.images.values().map(|s| s.picture.bytes()).sum()
    }

    /// The oldest stored image: `(serial, id)`.
    pub(super) fn oldest(&self) -> Option<(u64, u32)> {
        self.images.iter().map(|(&id, s)| (s.serial, id)).min()
    }

    pub(super) fn forget(&mut self, id: u32) {
        self.images.remove(&id);
    }

    fn by_number(&self, number: u32) -> Option<u32> {
        self.images
            .iter()
            .filter(|(_, s)| s.number == number)
            .max_by_key(|(_, s)| s.serial)
            .map(|(&id, _)| id)
    }
}

/// One command's keys (kitty's defaults where absent).
#[derive(Clone, Debug)]
struct Command {
    action: u8,
    format: u32,
    medium: u8,
    compression: u8,
    width: u32,
    height: u32,
    id: u32,
    number: u32,
    placement: u32,
    more: bool,
    quiet: u32,
    cols: u32,
    rows: u32,
    source: (u32, u32, u32, u32),
    stay: bool,
    z: i32,
    delete: u8,
}

impl Command {
    fn parse(control: &[u8]) -> Command {
        let mut c = Command {
            action: b't',
            format: 32,
            medium: b'd',
            compression: 0,
            width: 0,
            height: 0,
            id: 0,
            number: 0,
            placement: 0,
            more: false,
            quiet: 0,
            cols: 0,
            rows: 0,
            source: (0, 0, 0, 0),
            stay: false,
            z: 0,
            delete: b'a',
        };
        for pair in control.split(|&b| b == b',') {
            let [key, b'=', value @ ..] = pair else { continue };
            let letter = value.first().copied().unwrap_or(0);
            let number = std::str::from_utf8(value)
                .ok()
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(0);
            let unsigned = number.clamp(0, i64::from(u32::MAX)) as u32;
            match key {
                b'a' => c.action = letter,
                b'f' => c.format = unsigned,
                b't' => c.medium = letter,
                b'o' => c.compression = letter,
                b's' => c.width = unsigned,
                b'v' => c.height = unsigned,
                b'i' => c.id = unsigned,
                b'I' => c.number = unsigned,
                b'p' => c.placement = unsigned,
                b'm' => c.more = number == 1,
                b'q' => c.quiet = unsigned,
                // Past any screen is past any use: kept small, so sizes cannot overflow.
                b'c' => c.cols = unsigned.min(u32::from(crate::terminal::MAX_SIZE)),
                b'r' => c.rows = unsigned.min(u32::from(super::MAX_PLACEMENT_ROWS)),
                b'x' => c.source.0 = unsigned,
                b'y' => c.source.1 = unsigned,
                b'w' => c.source.2 = unsigned,
                b'h' => c.source.3 = unsigned,
                b'C' => c.stay = number == 1,
                b'z' => c.z = number.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32,
                b'd' => c.delete = letter,
                _ => {}
            }
        }
        c
    }
}

/// Runs one `APC G` command: the bytes to give the parser after it (a placement's) and
/// the answer the program is owed.
pub(super) fn command(graphics: &mut Graphics, body: &[u8], ctx: &Context<'_>) -> KittyOutcome {
    let (control, payload) = match body.iter().position(|&b| b == b';') {
        Some(at) => (&body[..at], &body[at + 1..]),
        None => (body, &b""[..]),
    };
    let chunk = Command::parse(control);
    // Each chunk is base64 on its own (chafa pads every one).
    let decoded = base64_decode(payload);
    let (command, data) = match graphics.kitty.pending.take() {
        Some((first, data)) => {
            let data = data.zip(decoded).map(|(mut data, more)| {
                data.extend_from_slice(&more);
                data
            });
            if data.as_ref().is_some_and(|d| d.len() > MAX_IMAGE_STRING) {
                return KittyOutcome {
                    placed: None,
                    answer: answer(&first, Err("EFBIG:the transmission is too large")),
                };
            }
            if chunk.more {
                graphics.kitty.pending = Some((first, data));
                return KittyOutcome::default();
            }
            (first, data)
        }
        None if chunk.more && matches!(chunk.action, b't' | b'T' | b'q') => {
            graphics.kitty.pending = Some((chunk, decoded));
            return KittyOutcome::default();
        }
        None => (chunk, decoded),
    };
    let mut placed = None;
    let result = match command.action {
        b'q' => picture(&command, data).map(|_| ()),
        b't' | b'T' => {
            let paid = Context {
                bytes: ctx.bytes.max(data.as_ref().map_or(0, Vec::len)),
                ..*ctx
            };
            picture(&command, data).map(|picture| {
                let id = store(graphics, &command, picture);
                if command.action == b'T' {
                    placed = Some(place(graphics, &command, id, &paid));
                }
            })
        }
        b'p' => match image_id(graphics, &command) {
            Some(id) => {
                placed = Some(place(graphics, &command, id, ctx));
                Ok(())
            }
            None => Err("ENOENT:no image with this id or number".to_string()),
        },
        b'd' => {
            delete(graphics, &command, ctx);
            Ok(())
        }
        _ => Err("EINVAL:animation is not supported".to_string()),
    };
    let answer = match command.action {
        b'd' => None,
        _ => answer(&command, result.as_ref().map(|_| ()).map_err(String::as_str)),
    };
    KittyOutcome { placed, answer }
}

fn image_id(graphics: &Graphics, command: &Command) -> Option<u32> {
    if command.id != 0 {
        graphics
            .kitty
            .images
            .contains_key(&command.id)
            .then_some(command.id)
    } else if command.number != 0 {
        graphics.kitty.by_number(command.number)
    } else {
        None
    }
}

/// Keeps a transmitted picture; its id (one is made up for a number or an anonymous one).
fn store(graphics: &mut Graphics, command: &Command, picture: Picture) -> u32 {
    let store = &mut graphics.kitty;
    let id = if command.id != 0 {
        command.id
    } else {
        // kitty hands out ids counting down from the top for images without one.
        store.next_auto_id = store.next_auto_id.wrapping_add(1);
        u32::MAX - store.next_auto_id
    };
    let bytes = picture.bytes();
    graphics.delete_kitty_image(id);
    graphics.make_room(bytes);
    // One count orders kitty's images and the other placements, for eviction.
    graphics.next_serial += 1;
    graphics.kitty.images.insert(
        id,
        Stored {
            picture: Arc::new(picture),
            number: command.number,
            serial: graphics.next_serial,
        },
    );
    id
}

/// Decodes a transmission's payload into a picture.
fn picture(command: &Command, data: Option<Vec<u8>>) -> Result<Picture, String> {
    if command.medium != b'd' {
        return Err("EINVAL:only direct transmission (t=d) is supported".to_string());
    }
    let mut bytes = data.ok_or("EINVAL:the payload is not base64")?;
    // How many bytes the data may hold, checked before anything is inflated: raw samples
    // are exactly the size `s`×`v` claims, so compressed data never inflates past it.
    let (w, h) = (command.width, command.height);
    let need = match command.format {
        100 => None,
        24 | 32 => {
            let channels = if command.format == 24 { 3 } else { 4 };
            if w == 0 || h == 0 {
                return Err("EINVAL:RGB and RGBA data need their size in s and v".to_string());
            }
            if (w as usize).saturating_mul(h as usize) > MAX_IMAGE_PIXELS {
                return Err(format!("EFBIG:a {w}x{h} image has too many pixels"));
            }
            Some((channels, w as usize * h as usize * channels))
        }
        other => return Err(format!("EINVAL:unknown format f={other}")),
    };
    if command.compression == b'z' {
        // A PNG inflates to at most what the pixel cap allows as raw samples.
        let limit = need.map_or(MAX_IMAGE_PIXELS * 4, |(_, need)| need);
        bytes = inflate(&bytes, limit).map_err(|e| match (e, need) {
            (InflateError::TooLarge, Some(_)) => {
                format!("EINVAL:the zlib data inflates to more than the {limit} bytes a {w}x{h} image holds")
            }
            (InflateError::TooLarge, None) => {
                format!("EFBIG:the zlib data inflates to more than {limit} bytes")
            }
            (InflateError::Invalid, _) => "EINVAL:the zlib data does not inflate".to_string(),
            #[cfg(not(feature = "render"))]
            (InflateError::Unsupported, _) => {
                "EINVAL:compressed data needs tuipilot's `render` feature".to_string()
            }
        })?;
    }
    if bytes.is_empty() {
        return Err("ENODATA:no image data".to_string());
    }
    match need {
        None => super::decode_png(&bytes).map_err(|e| format!("EBADPNG:{e}")),
        Some((channels, need)) => {
            if bytes.len() < need {
                return Err(format!(
                    "ENODATA:{} bytes of data for {w}x{h}, {need} needed",
                    bytes.len()
                ));
            }
            Ok(Picture::from_samples(w, h, channels, bytes))
        }
    }
}

/// Why compressed data could not be inflated.
#[derive(Debug, PartialEq, Eq)]
// Without `render` nothing inflates, so only `Unsupported` is ever made.
#[cfg_attr(not(feature = "render"), allow(dead_code))]
enum InflateError {
    /// It inflates to more than the limit (inflating stopped there).
    TooLarge,
    /// It is not zlib data, or it is cut short.
    Invalid,
    /// This build cannot inflate.
    #[cfg(not(feature = "render"))]
    Unsupported,
}

/// `bytes` inflated, stopping at `limit` bytes of output.
#[cfg(feature = "render")]
fn inflate(bytes: &[u8], limit: usize) -> Result<Vec<u8>, InflateError> {
    use miniz_oxide::inflate::TINFLStatus;
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(bytes, limit).map_err(|e| match e.status {
        TINFLStatus::HasMoreOutput => InflateError::TooLarge,
        _ => InflateError::Invalid,
    })
}

#[cfg(not(feature = "render"))]
fn inflate(_: &[u8], _: usize) -> Result<Vec<u8>, InflateError> {
    Err(InflateError::Unsupported)
}

/// Places stored image `id` at the cursor, at the size `c`/`r` ask for (one of them: the
/// other follows the picture's proportions) or its own.
fn place(graphics: &mut Graphics, command: &Command, id: u32, ctx: &Context<'_>) -> Vec<u8> {
    let Some(stored) = graphics.kitty.images.get(&id) else {
        return Vec::new();
    };
    let (x, y, w, h) = command.source;
    let picture = if (x, y, w, h) == (0, 0, 0, 0) {
        Arc::clone(&stored.picture)
    } else {
        match stored.picture.crop(x, y, w, h) {
            Some(p) => Arc::new(p),
            None => return Vec::new(),
        }
    };
    // Cells asked for, as pixels; one of them keeps the proportions, both stretch.
    let cells = |n: u32, cell: u16| (n > 0).then(|| n * u32::from(cell.max(1)));
    let asked = (
        cells(command.cols, ctx.cell.width),
        cells(command.rows, ctx.cell.height),
    );
    let display = drawn_size(
        (picture.width, picture.height),
        asked,
        asked.0.is_none() || asked.1.is_none(),
    );
    let shown = Shown {
        placement_id: command.placement,
        above_text: command.z >= 0,
        z: command.z,
        ..Shown::new(ImageProtocol::Kitty, id, picture, display, ctx.cell)
    };
    graphics.place(
        shown,
        if command.stay {
            CursorAfter::Stay
        } else {
            CursorAfter::Right
        },
        ctx,
    )
}

/// `a=d`: deletes placements (and, for an upper-case `d`, the images left without one).
fn delete(graphics: &mut Graphics, command: &Command, ctx: &Context<'_>) {
    let free = command.delete.is_ascii_uppercase();
    let (cursor_row, cursor_col) = ctx.screen.cursor_position();
    let (cursor_row, cursor_col) = (u32::from(cursor_row), u32::from(cursor_col));
    // Positions are 1-based in the command.
    let (x, y) = (
        command.source.0.saturating_sub(1),
        command.source.1.saturating_sub(1),
    );
    // Where kitty's placements are, read off the screen only for the keys that ask.
    let located_where = |keep: &dyn Fn(&super::Image) -> bool| -> Vec<u32> {
        let images = graphics.images(ctx.screen, ctx.cell);
        let kitty = images.iter().filter(|i| i.protocol == ImageProtocol::Kitty);
        kitty.filter(|i| keep(i)).map(|i| i.id).collect()
    };
    let in_col = |image: &super::Image, col: u32| {
        (u32::from(image.col)..u32::from(image.col) + u32::from(image.cols)).contains(&col)
    };
    let in_row = |image: &super::Image, row: u32| image.strips.iter().any(|&(r, _)| u32::from(r) == row);
    let ids: Vec<u32> = match command.delete.to_ascii_lowercase() {
        b'a' => graphics
            .placements
            .values()
            .filter(|p| p.shown.protocol == ImageProtocol::Kitty)
            .map(|p| p.shown.id)
            .collect(),
        b'i' => vec![command.id],
        b'n' => graphics.kitty.by_number(command.number).into_iter().collect(),
        b'r' => {
            let (low, high) = (command.source.0, command.source.1);
            graphics
                .kitty
                .images
                .keys()
                .copied()
                .filter(|id| (low..=high).contains(id))
                .collect()
        }
        b'c' => located_where(&|i| in_row(i, cursor_row) && in_col(i, cursor_col)),
        // At a cell (`q` adds a z-index, not told apart here).
        b'p' | b'q' => located_where(&|i| in_row(i, y) && in_col(i, x)),
        b'x' => located_where(&|i| in_col(i, x)),
        b'y' => located_where(&|i| in_row(i, y)),
        b'z' => graphics
            .placements
            .values()
            .filter(|p| p.shown.protocol == ImageProtocol::Kitty && p.shown.z == command.z)
            .map(|p| p.shown.id)
            .collect(),
        _ => Vec::new(),
    };
    for id in ids {
        let placement = command.placement;
        graphics.remove_where(|p| {
            p.shown.protocol == ImageProtocol::Kitty
                && p.shown.id == id
                && (!command.delete.eq_ignore_ascii_case(&b'i')
                    || placement == 0
                    || p.shown.placement_id == placement)
        });
        if free {
            graphics.delete_kitty_image(id);
        }
    }
}

/// The answer to a command that carries an id or number, unless `q` silences it.
fn answer(command: &Command, result: Result<(), &str>) -> Option<Answer> {
    if command.id == 0 && command.number == 0 {
        return None;
    }
    let silenced = match result {
        Ok(()) => command.quiet >= 1,
        Err(_) => command.quiet >= 2,
    };
    if silenced {
        return None;
    }
    let mut keys = Vec::new();
    if command.id != 0 {
        keys.push(format!("i={}", command.id));
    }
    if command.number != 0 {
        keys.push(format!("I={}", command.number));
    }
    if command.placement != 0 {
        keys.push(format!("p={}", command.placement));
    }
    let message = result.err().unwrap_or("OK");
    let keys = keys.join(",");
    Some(Answer {
        query: format!("\x1b_Ga={},{keys};…\x1b\\", char::from(command.action)),
        reply: format!("\x1b_G{keys};{message}\x1b\\"),
    })
}
