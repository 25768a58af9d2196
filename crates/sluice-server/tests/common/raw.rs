//! A raw wire-protocol client: send exact bytes, read back exact messages.

use std::collections::BTreeMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// One backend message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Msg {
    /// Type byte.
    pub tag: u8,
    /// Body without type and length.
    pub body: Vec<u8>,
}

impl Msg {
    /// The fields of an ErrorResponse/NoticeResponse by code.
    pub fn fields(&self) -> BTreeMap<char, String> {
        assert!(self.tag == b'E' || self.tag == b'N', "not an error/notice: {self:?}");
        let mut fields = BTreeMap::new();
        for part in self.body.split(|&b| b == 0).filter(|p| !p.is_empty()) {
            fields.insert(part[0] as char, String::from_utf8_lossy(&part[1..]).into_owned());
        }
        fields
    }

    /// (severity, sqlstate, message) of an error/notice.
    pub fn error(&self) -> (String, String, String) {
        let f = self.fields();
        (f[&'S'].clone(), f[&'C'].clone(), f[&'M'].clone())
    }
}

/// A framed message: type, length, body.
pub fn msg(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![tag];
    m.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
    m.extend_from_slice(body);
    m
}

/// A startup packet for protocol `version` with `params`.
pub fn startup_packet(version: u32, params: &[(&str, &str)]) -> Vec<u8> {
    let mut body = version.to_be_bytes().to_vec();
    for (k, v) in params {
        body.extend_from_slice(k.as_bytes());
        body.push(0);
        body.extend_from_slice(v.as_bytes());
        body.push(0);
    }
    body.push(0);
    let mut p = (body.len() as i32 + 4).to_be_bytes().to_vec();
    p.extend_from_slice(&body);
    p
}

/// The usual startup packet (3.0, user postgres).
pub fn default_startup() -> Vec<u8> {
    startup_packet(3 << 16, &[("user", "postgres"), ("database", "postgres")])
}

/// An 8-byte special request (SSLRequest, GSSENCRequest).
pub fn request(code: u32) -> Vec<u8> {
    let mut p = 8i32.to_be_bytes().to_vec();
    p.extend_from_slice(&code.to_be_bytes());
    p
}

/// A Query message.
pub fn query(sql: &str) -> Vec<u8> {
    let mut body = sql.as_bytes().to_vec();
    body.push(0);
    msg(b'Q', &body)
}

/// A Sync message.
pub fn sync() -> Vec<u8> {
    msg(b'S', b"")
}

/// A Parse message.
pub fn parse(name: &str, sql: &str, types: &[u32]) -> Vec<u8> {
    let mut body = cstr(name);
    body.extend(cstr(sql));
    body.extend_from_slice(&(types.len() as u16).to_be_bytes());
    for t in types {
        body.extend_from_slice(&t.to_be_bytes());
    }
    msg(b'P', &body)
}

/// A Bind message with text parameters and no result formats.
pub fn bind(portal: &str, statement: &str, params: &[&str]) -> Vec<u8> {
    let mut body = cstr(portal);
    body.extend(cstr(statement));
    body.extend_from_slice(&0u16.to_be_bytes());
    body.extend_from_slice(&(params.len() as u16).to_be_bytes());
    for p in params {
        body.extend_from_slice(&(p.len() as i32).to_be_bytes());
        body.extend_from_slice(p.as_bytes());
    }
    body.extend_from_slice(&0u16.to_be_bytes());
    msg(b'B', &body)
}

/// A Describe message ('S' or 'P').
pub fn describe(kind: u8, name: &str) -> Vec<u8> {
    let mut body = vec![kind];
    body.extend(cstr(name));
    msg(b'D', &body)
}

/// An Execute message.
pub fn execute(portal: &str, max_rows: i32) -> Vec<u8> {
    let mut body = cstr(portal);
    body.extend_from_slice(&max_rows.to_be_bytes());
    msg(b'E', &body)
}

/// A NUL-terminated string.
pub fn cstr(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

/// A raw connection.
pub struct Raw {
    /// The socket.
    pub stream: TcpStream,
}

impl Raw {
    /// Connect (reads time out after 10 s so a wrong expectation fails, not hangs).
    pub fn connect(addr: SocketAddr) -> Raw {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        Raw { stream }
    }

    /// Connect and complete a normal startup.
    pub fn connected(addr: SocketAddr) -> Raw {
        let mut raw = Raw::connect(addr);
        raw.send(&default_startup());
        let msgs = raw.read_until_ready();
        assert_eq!(msgs.first().map(|m| m.tag), Some(b'R'), "{msgs:?}");
        raw
    }

    /// Send bytes.
    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("send");
    }

    /// Exactly `n` bytes, or `None` at end of file / reset.
    pub fn read_exact(&mut self, n: usize) -> Option<Vec<u8>> {
        let mut buf = vec![0; n];
        match self.stream.read_exact(&mut buf) {
            Ok(()) => Some(buf),
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::TimedOut => {
                panic!("timed out waiting for the server")
            }
            Err(_) => None,
        }
    }

    /// The next message, `None` when the server closed the connection.
    pub fn read_msg(&mut self) -> Option<Msg> {
        let head = self.read_exact(5)?;
        let len = i32::from_be_bytes(head[1..5].try_into().unwrap()) as usize;
        let body = self.read_exact(len - 4)?;
        Some(Msg { tag: head[0], body })
    }

    /// Messages up to and including ReadyForQuery.
    pub fn read_until_ready(&mut self) -> Vec<Msg> {
        let mut msgs = Vec::new();
        loop {
            let m =
                self.read_msg().unwrap_or_else(|| panic!("closed before ReadyForQuery: {msgs:?}"));
            let done = m.tag == b'Z';
            msgs.push(m);
            if done {
                return msgs;
            }
        }
    }

    /// Messages until the server closes the connection.
    pub fn read_until_closed(&mut self) -> Vec<Msg> {
        let mut msgs = Vec::new();
        while let Some(m) = self.read_msg() {
            msgs.push(m);
        }
        msgs
    }

    /// Everything until close, as raw bytes.
    pub fn read_all_bytes(&mut self) -> Vec<u8> {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match self.stream.read(&mut buf) {
                Ok(0) | Err(_) => return all,
                Ok(n) => all.extend_from_slice(&buf[..n]),
            }
        }
    }
}

/// The tags of `msgs` as a string, e.g. "1t TZ".
pub fn tags(msgs: &[Msg]) -> String {
    msgs.iter().map(|m| m.tag as char).collect()
}
