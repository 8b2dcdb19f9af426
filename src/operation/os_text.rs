//! Words a program is started with — its arguments, working folder and environment — as
//! the JSON of the host protocol and of recordings carries them, byte for byte.
//!
//! On Unix an argument, a path or an environment variable is any bytes but NUL; JSON
//! strings are Unicode. A word that is UTF-8 is written as the string it is (so every
//! ordinary spec reads as before); one that is not is written as `{"bytes": [255, 97]}`,
//! and both read back to the same bytes. Nothing is replaced or dropped on the way: a
//! replay starts the program with exactly what the session gave it.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One word as JSON holds it.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Word {
    Text(String),
    Bytes { bytes: Vec<u8> },
}

impl Word {
    fn of(word: &OsStr) -> Word {
        match word.to_str() {
            Some(text) => Word::Text(text.to_string()),
            None => Word::Bytes {
                bytes: word.as_bytes().to_vec(),
            },
        }
    }

    fn into_os(self) -> OsString {
        match self {
            Word::Text(text) => text.into(),
            Word::Bytes { bytes } => OsString::from_vec(bytes),
        }
    }
}

/// `Vec<OsString>` (the program and its arguments).
pub(crate) mod words {
    use super::*;

    pub fn serialize<S: Serializer>(words: &[OsString], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(words.iter().map(|w| Word::of(w)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<OsString>, D::Error> {
        Ok(Vec::<Word>::deserialize(d)?
            .into_iter()
            .map(Word::into_os)
            .collect())
    }
}

/// `Option<PathBuf>` (the working folder).
pub(crate) mod path {
    use super::*;

    pub fn serialize<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
        path.as_deref().map(|p| Word::of(p.as_os_str())).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
        Ok(Option::<Word>::deserialize(d)?.map(|w| PathBuf::from(w.into_os())))
    }
}

/// `Vec<(OsString, OsString)>` (the environment, in order).
pub(crate) mod pairs {
    use super::*;

    pub fn serialize<S: Serializer>(pairs: &[(OsString, OsString)], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(pairs.iter().map(|(k, v)| (Word::of(k), Word::of(v))))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(OsString, OsString)>, D::Error> {
        Ok(Vec::<(Word, Word)>::deserialize(d)?
            .into_iter()
            .map(|(k, v)| (k.into_os(), v.into_os()))
            .collect())
    }
}

/// `word` for a person to read: UTF-8 as it is, other bytes as `\xHH`.
pub fn shown(word: &OsStr) -> String {
    let mut out = String::new();
    for chunk in word.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Spec {
        #[serde(with = "words")]
        command: Vec<OsString>,
        #[serde(with = "path")]
        cwd: Option<PathBuf>,
        #[serde(with = "pairs")]
        env: Vec<(OsString, OsString)>,
    }

    #[test]
    fn utf8_words_stay_strings_and_other_bytes_come_back_exactly() {
        let odd = OsString::from_vec(vec![b'a', 0xff, 0x1b, b'\n', 0xc3]);
        let spec = Spec {
            command: vec!["less".into(), odd.clone()],
            cwd: Some(PathBuf::from(odd.clone())),
            env: vec![(odd.clone(), "v".into())],
        };
        let json = serde_json::to_string(&spec).unwrap();
        assert!(
            json.starts_with(r#"{"command":["less",{"bytes":[97,255,27,10,195]}]"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Spec>(&json).unwrap(), spec);
        assert_eq!(shown(&odd), "a\\xff\u{1b}\n\\xc3");
    }
}
