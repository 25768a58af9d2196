//! The startup packet: what a new connection says first (PostgreSQL's
//! `ProcessStartupPacket` in `tcop/backend_startup.c`).
//!
//! A startup packet has no type byte: a 32-bit length (counting itself), a 32-bit
//! code, and a body. The code is either a protocol version (3.0 = 196608) followed
//! by NUL-terminated name/value pairs and a final NUL, or one of three requests:
//!
//! - SSLRequest (80877103): sluice has no TLS, so it answers 'N' and reads another
//!   packet; a second SSLRequest is then just an unsupported protocol number.
//! - GSSENCRequest (80877104): likewise 'N'.
//! - CancelRequest (80877102): the body is (pid, secret key); the caller passes it
//!   to the cancel registry and hangs up without a reply.
//!
//! Checks, in PostgreSQL's order and words:
//! - length below 8 or above 10004 (body above `MAX_STARTUP_PACKET_LENGTH`), or end
//!   of file: hang up without a reply (PostgreSQL only logs these);
//! - bytes already waiting after an SSL/GSS request: FATAL 08P01 (they were sent
//!   before encryption could start, so they may be injected);
//! - major version other than 3: FATAL 0A000 `unsupported frontend protocol
//!   X.Y: server supports 3.0 to 3.0`;
//! - pairs not ending in the terminator exactly at the end: FATAL 08P01;
//! - no user: FATAL 28000; the database defaults to the user name.
//!
//! A 3.x request with x > 0, or `_pq_.` protocol options, gets a
//! NegotiateProtocolVersion (3.0 and the unrecognised options) and proceeds at 3.0.

use pgwire::messages::response::{GssEncResponse, SslResponse};
use pgwire::messages::startup::NegotiateProtocolVersion;

use crate::error::PgError;
use crate::pqcomm::PqConnection;
use crate::pqformat::client_text;
use crate::sqlstate::SqlState;

/// Largest startup packet body after the length word (MAX_STARTUP_PACKET_LENGTH).
const MAX_STARTUP_PACKET_LENGTH: usize = 10_000;

/// The code of a CancelRequest.
const CANCEL_REQUEST_CODE: u32 = 80_877_102;

/// The code of an SSLRequest.
const NEGOTIATE_SSL_CODE: u32 = 80_877_103;

/// The code of a GSSENCRequest.
const NEGOTIATE_GSS_CODE: u32 = 80_877_104;

/// The only protocol version sluice speaks (PG_PROTOCOL_LATEST in PostgreSQL 15).
const PROTOCOL_3_0: u32 = 3 << 16;

/// What a client asked for when it connected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartupInfo {
    /// The role to connect as (`user`); never empty.
    pub user: String,
    /// The database (`database`), defaulting to the user name.
    pub database: String,
    /// The `replication` parameter if given (walsender connections), unvalidated.
    pub replication: Option<String>,
    /// Every other parameter, in the order sent: settings for the session such as
    /// `application_name`, `client_encoding`, `DateStyle`; the `-c name=value`
    /// switches of `options` (libpq's PGOPTIONS) come first, so a parameter
    /// sent by name wins over the same setting in `options`, as in PostgreSQL.
    pub settings: Vec<(String, String)>,
}

impl StartupInfo {
    /// The value of setting `name` as the client sent it (last one wins).
    pub fn setting(&self, name: &str) -> Option<&str> {
        self.settings.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// `application_name`, if the client set it.
    pub fn application_name(&self) -> Option<&str> {
        self.setting("application_name")
    }

    /// `client_encoding`, if the client set it.
    pub fn client_encoding(&self) -> Option<&str> {
        self.setting("client_encoding")
    }
}

/// What the first packet(s) of a connection amounted to.
pub(crate) enum StartupPacket {
    /// A client that wants a session.
    Connect(StartupInfo),
    /// A cancel request for session `pid`, authenticated by `secret`.
    Cancel {
        /// The target session's pid (from its BackendKeyData).
        pid: i32,
        /// The target session's secret key.
        secret: i32,
    },
    /// The client went away or sent garbage PostgreSQL would not answer.
    Hangup,
}

/// process_startup_packet -- read packets until a startup or cancel packet arrives,
/// answering SSL/GSS negotiation on the way. `Err` is a FATAL to send.
pub(crate) fn process_startup_packet(conn: &mut PqConnection) -> Result<StartupPacket, PgError> {
    let (mut ssl_done, mut gss_done) = (false, false);
    loop {
        let Some(body) = read_packet(conn) else { return Ok(StartupPacket::Hangup) };
        let code = be_u32(&body, 0).unwrap_or(0);
        match code {
            CANCEL_REQUEST_CODE => return Ok(cancel_request(&body)),
            NEGOTIATE_SSL_CODE if !ssl_done => {
                conn.send(&SslResponse::Refuse)?;
                refuse_encryption(conn, "SSL request")?;
                ssl_done = true;
            }
            NEGOTIATE_GSS_CODE if !gss_done => {
                conn.send(&GssEncResponse::Refuse)?;
                refuse_encryption(conn, "GSSAPI encryption request")?;
                gss_done = true;
            }
            version => return startup_message(conn, version, &body).map(StartupPacket::Connect),
        }
    }
}

/// read_packet -- one length-prefixed packet body, `None` if the client hung up or
/// the length is impossible.
fn read_packet(conn: &mut PqConnection) -> Option<Vec<u8>> {
    let len_word = conn.read_bytes(4)?;
    let len = usize::try_from(be_u32(&len_word, 0)?).ok()?.checked_sub(4)?;
    if !(4..=MAX_STARTUP_PACKET_LENGTH).contains(&len) {
        return None;
    }
    conn.read_bytes(len)
}

/// cancel_request -- decode a CancelRequest body (code, pid, secret).
fn cancel_request(body: &[u8]) -> StartupPacket {
    match (body.len(), be_u32(body, 4), be_u32(body, 8)) {
        (12, Some(pid), Some(secret)) => {
            StartupPacket::Cancel { pid: pid as i32, secret: secret as i32 }
        }
        _ => StartupPacket::Hangup,
    }
}

/// refuse_encryption -- after answering 'N', flush and make sure the client did not
/// send anything before it could have seen the answer.
fn refuse_encryption(conn: &mut PqConnection, what: &str) -> Result<(), PgError> {
    conn.flush()?;
    if conn.has_buffered_input() {
        return Err(PgError::fatal(
            SqlState::PROTOCOL_VIOLATION,
            format!("received unencrypted data after {what}"),
        )
        .with_detail("This could be either a client-software bug or evidence of an attempted man-in-the-middle attack."));
    }
    Ok(())
}

/// startup_message -- check the version and collect the parameters.
fn startup_message(
    conn: &mut PqConnection,
    version: u32,
    body: &[u8],
) -> Result<StartupInfo, PgError> {
    let (major, minor) = (version >> 16, version & 0xffff);
    if major != 3 {
        return Err(PgError::fatal(
            SqlState::FEATURE_NOT_SUPPORTED,
            format!("unsupported frontend protocol {major}.{minor}: server supports 3.0 to 3.0"),
        ));
    }
    let (info, unrecognized) = startup_info(parse_pairs(body)?)?;
    if minor > 0 || !unrecognized.is_empty() {
        conn.send(&NegotiateProtocolVersion::new(PROTOCOL_3_0 as i32, unrecognized))?;
    }
    Ok(info)
}

/// startup_info -- the startup parameters sorted out, with the protocol
/// options (`_pq_.*`) sluice does not know.
fn startup_info(pairs: Vec<(String, String)>) -> Result<(StartupInfo, Vec<String>), PgError> {
    let mut info = StartupInfo {
        user: String::new(),
        database: String::new(),
        replication: None,
        settings: Vec::new(),
    };
    let mut unrecognized = Vec::new();
    let mut from_options = Vec::new();
    for (name, value) in pairs {
        match name.as_str() {
            "user" => info.user = value,
            "database" => info.database = value,
            "options" => from_options.extend(option_settings(&value)?),
            "replication" => info.replication = Some(value),
            protocol_option if protocol_option.starts_with("_pq_.") => unrecognized.push(name),
            _ => info.settings.push((name, value)),
        }
    }
    from_options.append(&mut info.settings);
    info.settings = from_options;
    if info.user.is_empty() {
        return Err(PgError::fatal(
            SqlState::INVALID_AUTHORIZATION_SPECIFICATION,
            "no PostgreSQL user name specified in startup packet",
        ));
    }
    if info.database.is_empty() {
        info.database = info.user.clone();
    }
    Ok((info, unrecognized))
}

/// option_settings -- the settings of a startup packet's `options`: words
/// separated by spaces, a backslash taking the next character literally
/// (PostgreSQL's `pg_split_opts`), read as the server's command-line
/// switches `-c name=value`, `-cname=value` and `--name=value`
/// (`process_postgres_switches`; dashes in names are underscores). Other
/// switches are refused as PostgreSQL refuses what a client may not set.
fn option_settings(options: &str) -> Result<Vec<(String, String)>, PgError> {
    let words = split_options(options);
    let mut settings = Vec::new();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        let (flag, setting) = if let Some(rest) = word.strip_prefix("--") {
            ("--", rest.to_string())
        } else if word == "-c" {
            let next = words.next().ok_or_else(|| invalid_switch(word))?;
            ("-c ", next.clone())
        } else if let Some(rest) = word.strip_prefix("-c") {
            ("-c ", rest.to_string())
        } else {
            return Err(invalid_switch(word));
        };
        let Some((name, value)) = setting.split_once('=') else {
            return Err(PgError::fatal(
                SqlState::SYNTAX_ERROR,
                format!("{flag}{setting} requires a value"),
            ));
        };
        settings.push((name.replace('-', "_"), value.to_string()));
    }
    Ok(settings)
}

/// The words of `options`: split at unescaped whitespace, `\x` is `x`.
fn split_options(options: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = options.chars();
    let mut word = String::new();
    while let Some(c) = chars.next() {
        match c {
            '\\' => word.extend(chars.next()),
            c if c.is_ascii_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// FATAL 42601 for a switch a client cannot give.
fn invalid_switch(word: &str) -> PgError {
    PgError::fatal(
        SqlState::SYNTAX_ERROR,
        format!("invalid command-line argument for server process: {word}"),
    )
    .with_hint("Try \"postgres --help\" for more information.")
}

/// parse_pairs -- the name/value pairs after the version, which must end with the
/// terminating NUL as the packet's last byte.
fn parse_pairs(body: &[u8]) -> Result<Vec<(String, String)>, PgError> {
    let mut pairs = Vec::new();
    let mut offset = 4;
    while offset < body.len() {
        let name = cstring_at(body, offset);
        if name.is_empty() {
            break;
        }
        let value_offset = offset + name.len() + 1;
        if value_offset >= body.len() {
            break;
        }
        let value = cstring_at(body, value_offset);
        offset = value_offset + value.len() + 1;
        pairs.push((startup_text(name)?, startup_text(value)?));
    }
    if offset + 1 != body.len() {
        return Err(PgError::fatal(
            SqlState::PROTOCOL_VIOLATION,
            "invalid startup packet layout: expected terminator as last byte",
        ));
    }
    Ok(pairs)
}

/// The bytes at `offset` up to (not including) the next NUL or the end.
fn cstring_at(body: &[u8], offset: usize) -> &[u8] {
    let rest = body.get(offset..).unwrap_or_default();
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    &rest[..end]
}

/// A startup parameter as text; invalid UTF8 is FATAL (no session can start).
fn startup_text(bytes: &[u8]) -> Result<String, PgError> {
    client_text(bytes.to_vec()).map_err(PgError::into_fatal)
}

/// The big-endian u32 at `offset`, if the bytes are there.
fn be_u32(bytes: &[u8], offset: usize) -> Option<u32> {
    let word = bytes.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_be_bytes(word.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A startup body: version then pairs then terminator.
    fn body(pairs: &[(&str, &str)]) -> Vec<u8> {
        let mut b = PROTOCOL_3_0.to_be_bytes().to_vec();
        for (n, v) in pairs {
            b.extend_from_slice(n.as_bytes());
            b.push(0);
            b.extend_from_slice(v.as_bytes());
            b.push(0);
        }
        b.push(0);
        b
    }

    #[test]
    fn options_give_settings_before_the_named_parameters() {
        let pairs = [
            ("user", "u"),
            ("options", r"-c statement_timeout=5s --work-mem=8MB -capplication_name=a\ b"),
            ("work_mem", "16MB"),
        ];
        let pairs = pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        let (info, _) = startup_info(pairs).unwrap();
        let expected = [
            ("statement_timeout", "5s"),
            ("work_mem", "8MB"),
            ("application_name", "a b"),
            ("work_mem", "16MB"),
        ];
        let got: Vec<(&str, &str)> =
            info.settings.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        assert_eq!(got, expected);
        assert_eq!(info.setting("work_mem"), Some("16MB"));
    }

    #[test]
    fn options_other_than_settings_are_fatal() {
        for bad in ["-B 100", "-c", "-c work_mem", "--work_mem", "plain"] {
            let e = option_settings(bad).unwrap_err();
            assert_eq!(e.code, SqlState::SYNTAX_ERROR, "{bad}");
        }
        let e = option_settings("-d 5").unwrap_err();
        assert_eq!(e.message, "invalid command-line argument for server process: -d");
    }

    #[test]
    fn pairs_in_order() {
        let pairs = parse_pairs(&body(&[("user", "u"), ("application_name", "psql")])).unwrap();
        assert_eq!(
            pairs,
            vec![("user".into(), "u".into()), ("application_name".into(), "psql".into())]
        );
    }

    #[test]
    fn missing_terminator_is_fatal() {
        let mut b = body(&[("user", "u")]);
        b.pop();
        let e = parse_pairs(&b).unwrap_err();
        assert_eq!(e.message, "invalid startup packet layout: expected terminator as last byte");
        let mut b = body(&[("user", "u")]);
        b.push(b'x');
        assert!(parse_pairs(&b).is_err());
        let mut b = PROTOCOL_3_0.to_be_bytes().to_vec();
        b.extend_from_slice(b"user\0u");
        assert!(parse_pairs(&b).is_err());
    }

    #[test]
    fn cancel_request_needs_exact_length() {
        let mut b = CANCEL_REQUEST_CODE.to_be_bytes().to_vec();
        b.extend_from_slice(&7i32.to_be_bytes());
        b.extend_from_slice(&(-5i32).to_be_bytes());
        assert!(matches!(cancel_request(&b), StartupPacket::Cancel { pid: 7, secret: -5 }));
        b.push(0);
        assert!(matches!(cancel_request(&b), StartupPacket::Hangup));
    }

    #[test]
    fn settings_lookup() {
        let info = StartupInfo {
            user: "u".into(),
            database: "u".into(),
            replication: None,
            settings: vec![
                ("application_name".into(), "a".into()),
                ("client_encoding".into(), "UTF8".into()),
            ],
        };
        assert_eq!(info.application_name(), Some("a"));
        assert_eq!(info.client_encoding(), Some("UTF8"));
        assert_eq!(info.setting("DateStyle"), None);
    }
}
