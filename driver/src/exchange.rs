//! The out-of-band exchange of rdma-core's `ibv_rc_pingpong`, wire-compatible with the
//! unmodified tool (rdma-core 44 as Debian 12 ships it; the format has not changed since GIDs
//! were added for RoCE): over TCP, each side's LID, QPN, first PSN and GID as one fixed
//! 52-byte message `"%04x:%06x:%06x:%s"` plus its NUL, the GID as 32 hex digits of its 16
//! bytes in order (`gid_to_wire_gid` in `libibverbs/examples/pingpong.c`).
//!
//! The client connects, sends its message and reads the server's, then sends `"done"` and its
//! NUL. The server reads the client's message, connects its QP to it, and only then answers
//! with its own (so the client's first SEND finds a QP ready), then waits for `"done"`.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// How long a side waits for the other's next message.
pub const PATIENCE: Duration = Duration::from_secs(120);

/// Bytes of one side's message: `sizeof "0000:000000:000000:" + 32 hex digits`, NUL included.
pub const MSG_LEN: usize = 52;

/// One side of the connection: what the other side's QP needs to reach it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dest {
    /// Unused on RoCE (0).
    pub lid: u16,
    pub qpn: u32,
    pub psn: u32,
    pub gid: [u8; 16],
}

#[derive(Debug)]
pub enum ExchangeError {
    Io(std::io::Error),
    /// The peer's message is not one the tool sends.
    Malformed(String),
    /// The peer's message is not the `want` this step of the exchange takes.
    Unexpected { got: String, want: &'static str },
    /// The card's own step between messages failed (connecting its QP, resolving the peer).
    Local(String),
}

impl std::fmt::Display for ExchangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExchangeError::Io(e) if e.kind() == ErrorKind::TimedOut => write!(f, "no message from the peer tool and no frame on the link for {} s: it stopped (see its output)", PATIENCE.as_secs()),
            ExchangeError::Io(e) => write!(f, "exchange with the peer tool failed: {e} (is it running, with the same port?)"),
            ExchangeError::Malformed(m) => write!(f, "the peer tool sent {m}: not an ibv_rc_pingpong address message (LID:QPN:PSN:GID)"),
            ExchangeError::Unexpected { got, want } => write!(f, "the peer tool sent {got}: not {want}"),
            ExchangeError::Local(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ExchangeError {}

impl From<ExchangeError> for String {
    fn from(e: ExchangeError) -> String {
        e.to_string()
    }
}

impl From<std::io::Error> for ExchangeError {
    fn from(e: std::io::Error) -> Self {
        ExchangeError::Io(e)
    }
}

/// The RoCE v2 GID of an IPv4 address: `::ffff:a.b.c.d` (the tools' `-g` / `-x` index of an
/// IPv4-mapped GID).
pub fn gid_v4(ip: [u8; 4]) -> [u8; 16] {
    let mut g = [0u8; 16];
    g[10] = 0xFF;
    g[11] = 0xFF;
    g[12..].copy_from_slice(&ip);
    g
}

/// One hex field of a tool's message: hex digits only (the tools print fixed widths; one
/// more digit than 64 bits is refused), a value below 2^`bits`.
pub fn hex_field(s: &str, bits: u32) -> Option<u64> {
    let hex = !s.is_empty() && s.len() <= 16 && s.bytes().all(|b| b.is_ascii_hexdigit());
    u64::from_str_radix(s, 16).ok().filter(|v| hex && (bits >= 64 || *v < 1u64 << bits))
}

/// The card's local ACK timeout on a live link: 4.096 µs × 2^8 = 1 ms of simulated time. The
/// tools' 14 (67 ms) is 17 M cycles, minutes of wall time for the simulated card, so a packet
/// the receiver dropped at the end of a burst (nothing after it to show the gap) would stall
/// a run past every patience; a peer answers in a few hundred cycles of the card's time.
pub const LIVE_LINK_TIMEOUT: u8 = 8;

/// Connect `qp` to a tool's QP as the tools connect theirs (INIT, RTR, RTS; retry and RNR
/// retry 7; the local ACK timeout [`LIVE_LINK_TIMEOUT`]): the peer at its IPv4-mapped `gid` and `mac`, its QPN
/// `dest_qpn` starting at `rq_psn`, ours at `sq_psn`; `rd` is (READs and atomics the peer may
/// have at this QP, this QP at the peer), each 1 ... 8.
#[allow(clippy::too_many_arguments)]
pub fn connect_qp<B: crate::bus::Bus>(
    ctx: &mut crate::verbs::Context<B>,
    qp: &mut crate::verbs::Qp,
    gid: &[u8; 16],
    mac: [u8; 6],
    (dest_qpn, rq_psn, sq_psn): (u32, u32, u32),
    pmtu: u32,
    rd: (u8, u8),
) -> Result<(), crate::verbs::VerbsError> {
    use crate::verbs::{Path, QpAttr, QpState, VerbsError};
    let ip: [u8; 4] = gid[12..].try_into().expect("4 bytes");
    if *gid != gid_v4(ip) {
        return Err(VerbsError::BadAttribute("gid", "only IPv4-mapped RoCE v2 GIDs are routed (use the tool's -g / -x index of the IPv4 GID)".into()));
    }
    let path = Path { dest_mac: mac, remote_ip: rnic_spec::qp::RemoteIp::V4(ip), vlan: None, dscp: 0, ecn: 0, hop_limit: 64, flow_label: 0 };
    ctx.modify_qp(qp, QpState::Init, &QpAttr::default())?;
    let rtr = QpAttr { path: Some(path), pmtu: Some(pmtu), dest_qpn: Some(dest_qpn), rq_psn: Some(rq_psn), max_dest_rd_atomic: Some(rd.0), ..Default::default() };
    ctx.modify_qp(qp, QpState::Rtr, &rtr)?;
    let rts = QpAttr { sq_psn: Some(sq_psn), timeout: Some(LIVE_LINK_TIMEOUT), retry_cnt: Some(7), rnr_retry: Some(7), max_rd_atomic: Some(rd.1), ..Default::default() };
    ctx.modify_qp(qp, QpState::Rts, &rts)
}

impl Dest {
    /// The message the tool sends for this side.
    pub fn wire(&self) -> [u8; MSG_LEN] {
        let gid: String = self.gid.iter().map(|b| format!("{b:02x}")).collect();
        let text = format!("{:04x}:{:06x}:{:06x}:{gid}", self.lid, self.qpn & 0xFF_FFFF, self.psn & 0xFF_FFFF);
        let mut out = [0u8; MSG_LEN];
        out[..text.len()].copy_from_slice(text.as_bytes());
        out
    }

    /// A peer's message, read as the tool's `sscanf("%x:%x:%x:%s")` does, and checked: three
    /// hex numbers that fit (LID 16 bits, QPN and PSN 24) and a GID of 32 hex digits.
    pub fn parse(msg: &[u8]) -> Result<Dest, ExchangeError> {
        let shown = || format!("{:?}", String::from_utf8_lossy(msg).trim_end_matches('\0'));
        let text = std::str::from_utf8(msg).map_err(|_| ExchangeError::Malformed(shown()))?;
        let text = text.split('\0').next().unwrap_or("");
        let parts: Vec<&str> = text.split(':').collect();
        let [lid, qpn, psn, gid] = parts[..] else {
            return Err(ExchangeError::Malformed(shown()));
        };
        let num = |s: &str, bits: u32| hex_field(s, bits).map(|v| v as u32);
        let (Some(lid), Some(qpn), Some(psn)) = (num(lid, 16), num(qpn, 24), num(psn, 24)) else {
            return Err(ExchangeError::Malformed(shown()));
        };
        if gid.len() != 32 || !gid.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(ExchangeError::Malformed(shown()));
        }
        let mut g = [0u8; 16];
        for (i, b) in g.iter_mut().enumerate() {
            *b = u8::from_str_radix(&gid[2 * i..2 * i + 2], 16).map_err(|_| ExchangeError::Malformed(shown()))?;
        }
        Ok(Dest { lid: lid as u16, qpn, psn, gid: g })
    }
}

/// Print every message of the exchange to stderr (`--show-exchange`: what a failed interop
/// run needs to be debugged).
pub static SHOW_MESSAGES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// One message as a person reads it: text (up to its NULs) when it is text, else hex.
fn shown(msg: &[u8]) -> String {
    let end = msg.iter().position(|&b| b == 0).unwrap_or(msg.len());
    let text = end > 0 && msg[..end].iter().all(|b| b.is_ascii_graphic() || *b == b' ') && msg[end..].iter().all(|&b| b == 0);
    match text {
        true => format!("{:?}", String::from_utf8_lossy(&msg[..end])),
        false => msg.iter().map(|b| format!("{b:02x}")).collect(),
    }
}

fn note(dir: &str, msg: &[u8]) {
    if SHOW_MESSAGES.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("exchange: {dir} {} bytes {}", msg.len(), shown(msg));
    }
}

/// Send one message.
pub fn send(stream: &mut TcpStream, msg: &[u8]) -> Result<(), ExchangeError> {
    note("card → tool", msg);
    stream.write_all(msg)?;
    Ok(())
}

/// Fill `buf` from `stream`, calling `idle` while nothing comes (a simulated card keeps
/// running meanwhile: the peer's stack may ARP for it before it answers). The wait ends
/// after [`PATIENCE`] with neither a byte nor `idle` saying frames moved (a bandwidth test's
/// whole run is one such wait for its server).
pub fn read_all(stream: &mut TcpStream, buf: &mut [u8], idle: &mut dyn FnMut() -> bool) -> Result<(), ExchangeError> {
    stream.set_read_timeout(Some(Duration::from_millis(1)))?;
    let (mut got, mut start) = (0, Instant::now());
    while got < buf.len() {
        match stream.read(&mut buf[got..]) {
            Ok(0) => return Err(ExchangeError::Io(ErrorKind::UnexpectedEof.into())),
            Ok(n) => got += n,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {
                if start.elapsed() > PATIENCE {
                    return Err(ExchangeError::Io(ErrorKind::TimedOut.into()));
                }
                if idle() {
                    start = Instant::now();
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    note("tool → card", buf);
    Ok(())
}

/// The client's side: send `mine`, return the server's (`idle` runs while it waits).
pub fn client(stream: &mut TcpStream, mine: &Dest, idle: &mut dyn FnMut() -> bool) -> Result<Dest, ExchangeError> {
    send(stream, &mine.wire())?;
    let mut msg = [0u8; MSG_LEN];
    read_all(stream, &mut msg, idle)?;
    let theirs = Dest::parse(&msg)?;
    send(stream, b"done\0")?;
    Ok(theirs)
}

/// Connect to the tool's server at `at` and take `first` (the side's first exchange step),
/// again while the connection is refused or closed before the server answered (a forwarded
/// port whose server is not listening yet, as QEMU's hostfwd while the guest boots), for
/// [`PATIENCE`]; `idle` runs between tries (a simulated card keeps running).
pub fn connect_retrying<T>(
    at: std::net::SocketAddr,
    idle: &mut dyn FnMut() -> bool,
    mut first: impl FnMut(&mut TcpStream) -> Result<T, ExchangeError>,
) -> Result<(TcpStream, T), String> {
    let start = Instant::now();
    loop {
        let again = match TcpStream::connect(at) {
            Ok(mut stream) => match first(&mut stream) {
                Ok(t) => return Ok((stream, t)),
                Err(ExchangeError::Io(e)) if matches!(e.kind(), ErrorKind::UnexpectedEof | ErrorKind::ConnectionReset | ErrorKind::BrokenPipe) => e,
                Err(e) => return Err(e.to_string()),
            },
            Err(e) => e,
        };
        if start.elapsed() > PATIENCE {
            return Err(format!("cannot reach the tool's server at {at}: {again} (is it running?)"));
        }
        idle();
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The server's side: read the client's, `connect` the QP to it, then answer with `mine` and
/// wait for the client's `"done"` (`idle` runs while it waits).
pub fn server<E: From<ExchangeError>>(
    stream: &mut TcpStream,
    mine: &Dest,
    idle: &mut dyn FnMut() -> bool,
    connect: impl FnOnce(&Dest) -> Result<(), E>,
) -> Result<Dest, E> {
    let mut msg = [0u8; MSG_LEN];
    read_all(stream, &mut msg, idle)?;
    let theirs = Dest::parse(&msg)?;
    connect(&theirs)?;
    send(stream, &mine.wire())?;
    let mut done = [0u8; 5];
    read_all(stream, &mut done, idle)?;
    if &done != b"done\0" {
        return Err(ExchangeError::Malformed(format!("{:?} where \"done\" belongs", String::from_utf8_lossy(&done))).into());
    }
    Ok(theirs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// What the C tool writes: `sprintf(msg, "%04x:%06x:%06x:%s", ...)` into a 52-byte buffer.
    fn tool_msg(lid: u16, qpn: u32, psn: u32, gid: &str) -> Vec<u8> {
        let mut m = format!("{lid:04x}:{qpn:06x}:{psn:06x}:{gid}").into_bytes();
        m.resize(MSG_LEN, 0);
        m
    }

    #[test]
    fn messages_are_the_tools_bytes() {
        // The guest's message seen on its management NIC (issue 10): QPN 0x11, PSN 0xde98cc,
        // GID ::ffff:192.0.2.1.
        let guest = tool_msg(0, 0x11, 0xde98cc, "00000000000000000000ffffc0000201");
        let d = Dest::parse(&guest).unwrap();
        assert_eq!(d, Dest { lid: 0, qpn: 0x11, psn: 0xde98cc, gid: gid_v4([192, 0, 2, 1]) });
        assert_eq!(d.wire().to_vec(), guest);
        // (A GID of 32 bytes that are not 32 hex digits: a two-byte character among them.)
        let bad_gid = [&b"0000:000011:de98cc:"[..], "0\u{e9}00000000000000000ffffc0000201".as_bytes()].concat();
        let bad: [&[u8]; 6] = [
            b"0000:000011:de98cc",
            &bad_gid,
            b"0000:+11:22:00000000000000000000ffffc0000201",
            b"0000:1000000:000000:00000000000000000000ffffc0000201",
            b"zz:11:22:00000000000000000000ffffc0000201",
            b"0:11:22:ffffc0000201",
        ];
        for bad in bad {
            let e = Dest::parse(bad).unwrap_err().to_string();
            assert!(e.contains("not an ibv_rc_pingpong address message"), "{e}");
        }
    }

    #[test]
    fn server_and_client_speak_the_tools_exchange() {
        let card = Dest { lid: 0, qpn: 0x2, psn: 0x123456, gid: gid_v4([192, 0, 2, 2]) };
        // The card as server, the tool as client (played here with the tool's bytes).
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let at = listener.local_addr().unwrap();
        let tool = std::thread::spawn(move || {
            let mut s = TcpStream::connect(at).unwrap();
            s.write_all(&tool_msg(0, 0x11, 0xabcdef, "00000000000000000000ffffc0000201")).unwrap();
            let mut back = [0u8; MSG_LEN];
            s.read_exact(&mut back).unwrap();
            s.write_all(b"done\0").unwrap();
            back
        });
        let (mut conn, _) = listener.accept().unwrap();
        let mut connected = None;
        let theirs = server::<ExchangeError>(&mut conn, &card, &mut || false, |d| {
            connected = Some(*d);
            Ok(())
        })
        .unwrap();
        assert_eq!((theirs.qpn, theirs.psn, connected), (0x11, 0xabcdef, Some(theirs)));
        assert_eq!(tool.join().unwrap().to_vec(), tool_msg(0, 2, 0x123456, "00000000000000000000ffffc0000202"));

        // The card as client, the tool as server.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let at = listener.local_addr().unwrap();
        let tool = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut got = [0u8; MSG_LEN];
            s.read_exact(&mut got).unwrap();
            s.write_all(&tool_msg(0, 0x12, 0x42, "00000000000000000000ffffc0000201")).unwrap();
            let mut done = [0u8; 5];
            s.read_exact(&mut done).unwrap();
            (got, done)
        });
        let theirs = client(&mut TcpStream::connect(at).unwrap(), &card, &mut || false).unwrap();
        assert_eq!((theirs.qpn, theirs.psn), (0x12, 0x42));
        let (got, done) = tool.join().unwrap();
        assert_eq!((got.to_vec(), &done), (card.wire().to_vec(), b"done\0"));

        // A forwarded port that accepts and closes while its server is not up yet: the client
        // tries again and gets through to the server once it listens.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let at = listener.local_addr().unwrap();
        let tool = std::thread::spawn(move || {
            drop(listener.accept().unwrap());
            let (mut s, _) = listener.accept().unwrap();
            let mut got = [0u8; MSG_LEN];
            s.read_exact(&mut got).unwrap();
            s.write_all(&tool_msg(0, 0x13, 0x7, "00000000000000000000ffffc0000201")).unwrap();
            let mut done = [0u8; 5];
            s.read_exact(&mut done).unwrap();
        });
        let (_, theirs) = connect_retrying(at, &mut || false, |s| client(s, &card, &mut || false)).unwrap();
        assert_eq!((theirs.qpn, theirs.psn), (0x13, 0x7));
        tool.join().unwrap();
    }
}
