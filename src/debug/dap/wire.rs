//! The Debug Adapter Protocol's base protocol: `Content-Length` framing of JSON bodies,
//! and requests read from them.
//!
//! The messages are written as plain `serde_json` values and the requests read into one
//! small type rather than through a DAP crate: the `dap` crate on crates.io is an alpha
//! (0.4.1-alpha1) whose typed request enum refuses any request it does not know while
//! deserialising — and this server must answer every malformed or unknown request with
//! an error response naming its `seq` and command — and the server speaks only a score
//! of messages, whose fields the handlers read directly.
//!
//! Limits (the input is untrusted): a header line of at most [`MAX_HEADER_LINE`] bytes, at
//! most [`MAX_HEADERS`] header lines, a body of at most [`MAX_MESSAGE_BYTES`] — checked
//! before the body is read or allocated.

use std::io::{BufRead, Read, Write};

use serde_json::Value;

/// The largest message body the server reads (1 MiB): a `setBreakpoints` for every line
/// of the largest listing is far smaller.
pub const MAX_MESSAGE_BYTES: u64 = 1 << 20;

/// The longest header line, in bytes.
pub const MAX_HEADER_LINE: u64 = 1024;

/// The most header lines before a message's body.
pub const MAX_HEADERS: usize = 16;

/// Why a message could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Reading failed.
    #[error("cannot read the message: {0}")]
    Io(String),
    /// The header is malformed (what is wrong is said).
    #[error("malformed message header: {0}")]
    Header(String),
    /// The body is longer than [`MAX_MESSAGE_BYTES`].
    #[error("a message of {0} bytes is longer than the limit of {MAX_MESSAGE_BYTES} bytes")]
    TooLarge(u64),
    /// The stream ended inside a message.
    #[error("the stream ended inside a message ({0})")]
    Truncated(String),
}

/// Reads one message body; `None` at the end of the stream between messages.
pub fn read_message(r: &mut impl BufRead) -> Result<Option<Vec<u8>>, WireError> {
    let mut length: Option<u64> = None;
    let mut headers = 0usize;
    loop {
        let mut line = Vec::new();
        let n = r
            .by_ref()
            .take(MAX_HEADER_LINE + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| WireError::Io(e.to_string()))?;
        if n == 0 {
            if headers == 0 {
                return Ok(None);
            }
            return Err(WireError::Truncated("in the header".into()));
        }
        if line.last() != Some(&b'\n') {
            if n as u64 > MAX_HEADER_LINE {
                return Err(WireError::Header(format!(
                    "a header line longer than {MAX_HEADER_LINE} bytes"
                )));
            }
            return Err(WireError::Truncated("in a header line".into()));
        }
        let text = std::str::from_utf8(&line)
            .map_err(|_| WireError::Header("a header line that is not UTF-8".into()))?
            .trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if headers == 0 {
                // Blank lines between messages are tolerated.
                continue;
            }
            break;
        }
        headers += 1;
        if headers > MAX_HEADERS {
            return Err(WireError::Header(format!(
                "more than {MAX_HEADERS} header lines"
            )));
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(WireError::Header(format!("`{text}` is not `Name: value`")));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let v = value.trim();
            let n = v.parse::<u64>().map_err(|_| {
                WireError::Header(format!("Content-Length `{v}` is not a byte count"))
            })?;
            if length.is_some() {
                return Err(WireError::Header("two Content-Length headers".into()));
            }
            length = Some(n);
        }
    }
    let Some(len) = length else {
        return Err(WireError::Header("no Content-Length header".into()));
    };
    if len > MAX_MESSAGE_BYTES {
        return Err(WireError::TooLarge(len));
    }
    let mut body = Vec::with_capacity(len as usize);
    r.by_ref()
        .take(len)
        .read_to_end(&mut body)
        .map_err(|e| WireError::Io(e.to_string()))?;
    if (body.len() as u64) < len {
        return Err(WireError::Truncated(format!(
            "{} of {len} body bytes",
            body.len()
        )));
    }
    Ok(Some(body))
}

/// Writes one message: its `Content-Length` header and JSON body.
pub fn write_message(w: &mut impl Write, body: &Value) -> std::io::Result<()> {
    let text = body.to_string();
    write!(w, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    w.flush()
}

/// A request as the server reads it: its number, command and arguments (an object, or
/// null when absent).
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// `seq`.
    pub seq: i64,
    /// `command`.
    pub command: String,
    /// `arguments` (`Value::Null` when absent).
    pub arguments: Value,
}

/// Why a body is not a request; the `seq` and command when they could be read, so that
/// the error response names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest {
    /// The message's `seq`, when it has one.
    pub seq: Option<i64>,
    /// The message's `command`, when it has one.
    pub command: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// Reads a request from a message body.
pub fn parse_request(body: &[u8]) -> Result<Request, BadRequest> {
    let bad = |seq, command, message: String| BadRequest {
        seq,
        command,
        message,
    };
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| bad(None, None, format!("the message is not JSON: {e}")))?;
    let Value::Object(m) = v else {
        return Err(bad(None, None, "the message is not a JSON object".into()));
    };
    let seq = m.get("seq").and_then(Value::as_i64);
    let command = m.get("command").and_then(Value::as_str).map(str::to_string);
    match m.get("type").and_then(Value::as_str) {
        Some("request") => {}
        Some(t) => {
            return Err(bad(
                seq,
                command,
                format!("a `{t}` message: the server reads only requests"),
            ));
        }
        None => return Err(bad(seq, command, "the message has no `type`".into())),
    }
    let Some(seq) = seq else {
        return Err(bad(
            None,
            command,
            "the request has no integer `seq`".into(),
        ));
    };
    let Some(command) = command else {
        return Err(bad(Some(seq), None, "the request has no `command`".into()));
    };
    let arguments = match m.get("arguments") {
        None | Some(Value::Null) => Value::Null,
        Some(a @ Value::Object(_)) => a.clone(),
        Some(_) => {
            return Err(bad(
                Some(seq),
                Some(command),
                "`arguments` is not an object".into(),
            ));
        }
    };
    Ok(Request {
        seq,
        command,
        arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    /// DAP "Base Protocol": a header part of `Name: value` lines ended by `\r\n`, a blank
    /// line, then exactly Content-Length bytes of JSON.
    #[test]
    fn messages_are_framed_by_content_length() {
        let mut bytes = frame(r#"{"seq":1,"type":"request","command":"initialize"}"#);
        bytes.extend(frame(r#"{"seq":2,"type":"request","command":"threads"}"#));
        let mut r = std::io::Cursor::new(bytes);
        let a = read_message(&mut r).unwrap().unwrap();
        let b = read_message(&mut r).unwrap().unwrap();
        assert_eq!(parse_request(&a).unwrap().command, "initialize");
        assert_eq!(parse_request(&b).unwrap().seq, 2);
        assert_eq!(read_message(&mut r).unwrap(), None);
    }

    /// The size limit is checked before the body is read.
    #[test]
    fn an_oversized_body_is_refused_before_it_is_read() {
        let text = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE_BYTES + 1);
        let mut r = std::io::Cursor::new(text.into_bytes());
        assert_eq!(
            read_message(&mut r),
            Err(WireError::TooLarge(MAX_MESSAGE_BYTES + 1))
        );
        let mut r = std::io::Cursor::new(b"Content-Length: 99999999999999999999\r\n\r\n".to_vec());
        assert!(matches!(read_message(&mut r), Err(WireError::Header(_))));
    }

    #[test]
    fn malformed_headers_and_bodies_say_what_is_wrong() {
        let long = format!("X: {}\r\n", "a".repeat(2000));
        for (bytes, want) in [
            (b"Content-Type: x\r\n\r\n{}".to_vec(), "no Content-Length"),
            (b"garbage\r\n\r\n".to_vec(), "is not `Name: value`"),
            (long.into_bytes(), "longer than 1024"),
            (
                b"Content-Length: 10\r\n\r\n{}".to_vec(),
                "2 of 10 body bytes",
            ),
        ] {
            let e = read_message(&mut std::io::Cursor::new(bytes)).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
        for (body, want) in [
            (&b"{"[..], "not JSON"),
            (b"[1]", "not a JSON object"),
            (
                br#"{"seq":1,"type":"event","command":"x"}"#,
                "only requests",
            ),
            (br#"{"type":"request","command":"x"}"#, "no integer `seq`"),
            (br#"{"seq":3,"type":"request"}"#, "no `command`"),
            (
                br#"{"seq":3,"type":"request","command":"x","arguments":4}"#,
                "not an object",
            ),
        ] {
            let e = parse_request(body).unwrap_err();
            assert!(e.message.contains(want), "{}", e.message);
        }
    }
}
