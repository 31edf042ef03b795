//! A live link: one simulated card whose Ethernet port is a unix socket — a datagram socket, one
//! frame per datagram, the format of QEMU's `-netdev dgram,local.type=unix,...`, or a stream
//! socket the peer connects to, each frame after its length in 4 bytes big-endian, the format
//! of QEMU's `-netdev stream,server=off,addr.type=unix,...`; either way no FCS and no padding
//! to the 60-byte minimum — so a guest's network stack, Linux soft-RoCE among it, talks to the
//! RTL. Every frame both ways goes into a capture.
//!
//! The card has no host path for frames that are not RoCE yet, so ARP is answered here, in the
//! harness, for the card's address, and the peer's MAC is learnt from the ARP it sends or asks
//! for (`resolve`); the counts are in [`ArpCounts`]. Frames from the peer get the padding and
//! the FCS a MAC would have given them (the card runs in soft-MAC mode and checks the FCS);
//! frames from the card leave without their FCS.

use crate::axis::{beats, Beat};
use crate::nic::NicSim;
use rnic_spec::wire::crc::fcs;
use std::collections::VecDeque;
use std::io::ErrorKind;
use std::io::{Read, Write};
use std::os::unix::net::{UnixDatagram, UnixListener, UnixStream};
use std::path::{Path, PathBuf};

const ETHERTYPE_ARP: u16 = 0x0806;
/// An ARP packet for IPv4 over Ethernet after the Ethernet header: 28 bytes.
const ARP_LEN: usize = 28;
const MIN_FRAME: usize = 60;
/// The live link's rate toward the card (the card's 100 GbE port).
const LINK_GBPS: f64 = 100.0;
/// The longest frame taken from the peer (a jumbo frame and more): longer is counted oversize.
const MAX_FRAME: usize = 16384;

/// What the harness did for ARP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ArpCounts {
    /// Requests for the card's IP answered.
    pub answered: u64,
    /// Requests this side sent for the peer's IP.
    pub asked: u64,
    /// ARP packets the peer's MAC was learnt from (request or reply).
    pub learnt: u64,
    /// ARP packets for other addresses, or malformed: ignored.
    pub ignored: u64,
}

#[derive(Debug)]
pub enum LiveError {
    /// The socket could not be set up.
    Socket { path: PathBuf, err: std::io::Error },
}

impl std::fmt::Display for LiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LiveError::Socket { path, err } => write!(f, "unix socket {}: {err} (is the directory writable, the name free?)", path.display()),
        }
    }
}

impl std::error::Error for LiveError {}

/// How frames cross the socket.
enum Wire {
    /// One frame per datagram, sent to the peer's path.
    Dgram { sock: UnixDatagram, peer: PathBuf },
    /// The card listens, the peer connects; each frame after its length (4 bytes, big-endian).
    /// `rx` holds what arrived of the next frame, `tx` what the socket has not taken yet.
    Stream { listener: UnixListener, conn: Option<UnixStream>, rx: Vec<u8>, tx: Vec<u8> },
}

/// The card's end of the link.
pub struct LivePort {
    wire: Wire,
    /// The card's port address, for ARP.
    pub mac: [u8; 6],
    pub ip: [u8; 4],
    /// The peer's MAC, once learnt, by IPv4 address.
    pub neighbours: Vec<([u8; 4], [u8; 6])>,
    pub arp: ArpCounts,
    /// Frames to the peer the socket refused (no peer there yet: the frame is lost, as on a
    /// cable to a port switched off).
    pub send_errors: u64,
    /// Frames waiting for room in the peer's queue (a busy QEMU reads its socket late; the
    /// kernel keeps only a few datagrams for it): sent in order, the card's transmit held
    /// meanwhile, as a MAC's FIFO backs up.
    waiting: VecDeque<Vec<u8>>,
    /// Frames longer than a jumbo frame: dropped, counted (on a stream, whose framing is then
    /// lost, the connection is closed; a peer may connect again — QEMU 7.2's stream netdev
    /// does not, its link stays down).
    pub oversize: u64,
    /// Cycle of the last frame from the peer, and to it (how long the link has been quiet).
    pub last_rx: u64,
    pub last_tx: u64,
    /// Cycle until which the frame being handed to the card occupies a 100 Gb/s wire: frames
    /// from the peer arrive no faster than the wire carries them (preamble, FCS and gap
    /// counted), however many the socket holds.
    rx_busy_until: f64,
    handing: VecDeque<Beat>,
    /// Where the socket's bytes are read to (kept: it is read almost every cycle).
    rx_buf: Vec<u8>,
    /// (ns, from the card?, frame without FCS), in the order they crossed.
    capture: Vec<(u64, bool, Vec<u8>)>,
}

impl LivePort {
    /// A datagram link: bind `card` (removed first if a stale socket file is there) and send
    /// to `peer`.
    pub fn bind(card: &Path, peer: &Path, mac: [u8; 6], ip: [u8; 4]) -> Result<LivePort, LiveError> {
        let err = |err| LiveError::Socket { path: card.to_path_buf(), err };
        remove_stale(card).map_err(err)?;
        let sock = UnixDatagram::bind(card).map_err(err)?;
        sock.set_nonblocking(true).map_err(err)?;
        Ok(LivePort::new(Wire::Dgram { sock, peer: peer.to_path_buf() }, mac, ip))
    }

    /// A stream link: listen at `card` (removed first if a stale socket file is there) for the
    /// peer to connect.
    pub fn listen(card: &Path, mac: [u8; 6], ip: [u8; 4]) -> Result<LivePort, LiveError> {
        let err = |err| LiveError::Socket { path: card.to_path_buf(), err };
        remove_stale(card).map_err(err)?;
        let listener = UnixListener::bind(card).map_err(err)?;
        listener.set_nonblocking(true).map_err(err)?;
        Ok(LivePort::new(Wire::Stream { listener, conn: None, rx: Vec::new(), tx: Vec::new() }, mac, ip))
    }

    fn new(wire: Wire, mac: [u8; 6], ip: [u8; 4]) -> LivePort {
        LivePort {
            wire,
            mac,
            ip,
            neighbours: Vec::new(),
            arp: ArpCounts::default(),
            send_errors: 0,
            waiting: VecDeque::new(),
            oversize: 0,
            last_rx: 0,
            rx_busy_until: 0.0,
            last_tx: 0,
            handing: VecDeque::new(),
            rx_buf: vec![0; MAX_FRAME],
            capture: Vec::new(),
        }
    }

    /// The peer's MAC for `ip`, if learnt.
    pub fn neighbour(&self, ip: [u8; 4]) -> Option<[u8; 6]> {
        self.neighbours.iter().find(|n| n.0 == ip).map(|n| n.1)
    }

    /// Ask the peer for the MAC of `ip` (an ARP request, broadcast).
    pub fn resolve(&mut self, ip: [u8; 4], now: u64) {
        let frame = arp_frame(1, self.mac, self.ip, [0xFF; 6], [0; 6], ip);
        self.arp.asked += 1;
        self.send(frame, now);
    }

    fn send(&mut self, frame: Vec<u8>, now: u64) {
        self.last_tx = now;
        self.capture.push((ns(now), true, frame.clone()));
        self.waiting.push_back(frame);
        self.flush();
    }

    /// Send what waits, in order, while the peer's queue has room. (No peer there: lost, as
    /// on a cable to a port switched off.)
    fn flush(&mut self) {
        match &mut self.wire {
            Wire::Dgram { sock, peer } => {
                while let Some(frame) = self.waiting.front() {
                    match sock.send_to(frame, &*peer) {
                        Ok(_) => {}
                        Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                        Err(_) => self.send_errors += 1,
                    }
                    self.waiting.pop_front();
                }
            }
            Wire::Stream { conn: None, .. } => {
                self.send_errors += self.waiting.len() as u64;
                self.waiting.clear();
            }
            Wire::Stream { conn: Some(c), tx, .. } => {
                for frame in self.waiting.drain(..) {
                    tx.extend_from_slice(&(frame.len() as u32).to_be_bytes());
                    tx.extend_from_slice(&frame);
                }
                while !tx.is_empty() {
                    match c.write(tx) {
                        Ok(n) => drop(tx.drain(..n)),
                        Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                        Err(e) if e.kind() == ErrorKind::Interrupted => {}
                        // (The peer is gone: what it has not taken is lost with the connection.)
                        Err(_) => {
                            self.send_errors += 1;
                            tx.clear();
                            if let Wire::Stream { conn, .. } = &mut self.wire {
                                *conn = None;
                            }
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Nothing waits for the peer's queue.
    pub fn drained(&self) -> bool {
        self.waiting.is_empty() && !matches!(&self.wire, Wire::Stream { tx, .. } if !tx.is_empty())
    }

    /// The next frame from the peer, if one has arrived whole; `Err` for one too long.
    fn receive(&mut self) -> Option<Result<Vec<u8>, ()>> {
        let buf = &mut self.rx_buf;
        match &mut self.wire {
            Wire::Dgram { sock, .. } => match sock.recv(buf) {
                Ok(n) if n == buf.len() => Some(Err(())),
                Ok(n) => Some(Ok(buf[..n].to_vec())),
                Err(_) => None,
            },
            Wire::Stream { listener, conn, rx, tx } => {
                // (A whole frame already here goes first, also after the peer hung up.)
                if let Some(frame) = take_frame(rx, conn) {
                    return Some(frame);
                }
                if conn.is_none() {
                    let (c, _) = listener.accept().ok()?;
                    c.set_nonblocking(true).ok()?;
                    (*conn, *rx, *tx) = (Some(c), Vec::new(), Vec::new());
                }
                match conn.as_mut().expect("connected").read(buf) {
                    Ok(0) => *conn = None,
                    Ok(n) => rx.extend_from_slice(&buf[..n]),
                    Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
                    Err(_) => *conn = None,
                }
                take_frame(rx, conn)
            }
        }
    }

    /// The next beat for the card's receive port: from the frame being handed over, or from
    /// one that arrived.
    fn next_beat(&mut self, now: u64) -> Option<Beat> {
        self.fill(now);
        self.handing.pop_front()
    }

    /// Take a frame that arrived from the peer to hand to the card (ARP is answered here
    /// instead); true if one is being handed over.
    fn fill(&mut self, now: u64) -> bool {
        while self.handing.is_empty() {
            if (now as f64) < self.rx_busy_until {
                return false;
            }
            let Some(received) = self.receive() else { return false };
            self.last_rx = now;
            let Ok(frame) = received else {
                self.oversize += 1;
                continue;
            };
            self.capture.push((ns(now), false, frame.clone()));
            if frame.len() >= 14 && u16::from_be_bytes([frame[12], frame[13]]) == ETHERTYPE_ARP {
                self.on_arp(&frame, now);
                continue;
            }
            let mut wire = frame;
            if wire.len() < MIN_FRAME {
                wire.resize(MIN_FRAME, 0);
            }
            let f = fcs(&wire);
            wire.extend_from_slice(&f.to_le_bytes());
            self.rx_busy_until = now as f64 + crate::world::wire_cycles(wire.len(), LINK_GBPS);
            self.handing.extend(beats(&wire));
        }
        true
    }

    fn on_arp(&mut self, frame: &[u8], now: u64) {
        let Some(a) = frame.get(14..14 + ARP_LEN) else {
            self.arp.ignored += 1;
            return;
        };
        // Ethernet (1), IPv4 (0x0800), lengths 6 and 4.
        if a[..6] != [0, 1, 8, 0, 6, 4] {
            self.arp.ignored += 1;
            return;
        }
        let op = u16::from_be_bytes([a[6], a[7]]);
        let sha: [u8; 6] = a[8..14].try_into().expect("6");
        let spa: [u8; 4] = a[14..18].try_into().expect("4");
        let tpa: [u8; 4] = a[24..28].try_into().expect("4");
        let for_us = tpa == self.ip;
        if for_us || self.neighbour(spa).is_some() {
            self.neighbours.retain(|n| n.0 != spa);
            self.neighbours.push((spa, sha));
            self.arp.learnt += 1;
        }
        match (op, for_us) {
            (1, true) => {
                self.arp.answered += 1;
                let reply = arp_frame(2, self.mac, self.ip, sha, sha, spa);
                self.send(reply, now);
            }
            (2, true) => {}
            _ => self.arp.ignored += 1,
        }
    }

    /// Every frame that crossed, as a pcap file (both directions, in order).
    pub fn pcap(&self) -> Vec<u8> {
        let frames: Vec<(u64, Vec<u8>)> = self.capture.iter().map(|(t, _, f)| (*t, f.clone())).collect();
        crate::pcap::write(&frames)
    }

    /// (ns, from the card?, frame) of every frame that crossed.
    pub fn capture(&self) -> &[(u64, bool, Vec<u8>)] {
        &self.capture
    }
}

/// The first whole frame of a stream's bytes `rx`; `Err` for a length past any frame, whose
/// framing is then lost: the connection is dropped (the peer may connect again).
fn take_frame(rx: &mut Vec<u8>, conn: &mut Option<UnixStream>) -> Option<Result<Vec<u8>, ()>> {
    let len = u32::from_be_bytes(rx.get(..4)?.try_into().expect("4")) as usize;
    if len >= MAX_FRAME {
        *conn = None;
        rx.clear();
        return Some(Err(()));
    }
    let frame = rx.get(4..4 + len)?.to_vec();
    rx.drain(..4 + len);
    Some(Ok(frame))
}

/// Remove `path` if it is a socket (a stale one from an earlier run): a path that names any
/// other file is left, and the bind fails on it.
fn remove_stale(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_socket() => std::fs::remove_file(path),
        _ => Ok(()),
    }
}

fn ns(cycle: u64) -> u64 {
    crate::bench::ns_of(cycle as f64)
}

/// An ARP packet for IPv4 over Ethernet (`op` 1 request, 2 reply) in an Ethernet frame to
/// `dst`, unpadded (the card's side pads nothing it sends to a datagram socket either).
pub fn arp_frame(op: u16, sha: [u8; 6], spa: [u8; 4], dst: [u8; 6], tha: [u8; 6], tpa: [u8; 4]) -> Vec<u8> {
    let mut f = Vec::with_capacity(14 + ARP_LEN);
    f.extend_from_slice(&dst);
    f.extend_from_slice(&sha);
    f.extend_from_slice(&ETHERTYPE_ARP.to_be_bytes());
    f.extend_from_slice(&[0, 1, 8, 0, 6, 4]);
    f.extend_from_slice(&op.to_be_bytes());
    f.extend_from_slice(&sha);
    f.extend_from_slice(&spa);
    f.extend_from_slice(&tha);
    f.extend_from_slice(&tpa);
    f
}

/// Cycles after the last frame either way before a card with nothing outstanding counts as
/// idle (80 µs at 250 MHz): its pipelines are long done with that frame (a large READ's
/// response frames keep the link busy while they leave).
pub const QUIET_CYCLES: u64 = 20_000;

/// One card on a live link.
pub struct LiveWorld {
    pub nic: NicSim,
    pub port: LivePort,
}

impl LiveWorld {
    /// One clock cycle of the card, the link delivering what arrived.
    pub fn step(&mut self) {
        let now = self.nic.cycles();
        let rx = self.port.next_beat(now);
        self.port.flush();
        if let Some(mut frame) = self.nic.step(rx.as_ref(), self.port.drained()) {
            frame.truncate(frame.len().saturating_sub(4));
            self.port.send(frame, now);
        }
    }

    /// Run up to `max` cycles while anything moves — a frame either way within the last
    /// [`QUIET_CYCLES`], or one arriving — and return the cycles run. An idle card is not
    /// evaluated at all: its clock stands still until the next frame, so idle time costs no
    /// simulation. Only for a card with no request outstanding (its timers stand still too).
    pub fn run_busy(&mut self, max: u64) -> u64 {
        for ran in 0..max {
            let now = self.nic.cycles();
            let receiving = self.port.fill(now);
            let quiet = now.saturating_sub(self.port.last_rx.max(self.port.last_tx)) > QUIET_CYCLES;
            if quiet && !receiving && self.port.drained() {
                return ran;
            }
            self.step();
        }
        max
    }

    /// Step until `done(self)` or `max` cycles pass; true if `done`.
    pub fn run_until(&mut self, max: u64, mut done: impl FnMut(&LiveWorld) -> bool) -> bool {
        for _ in 0..max {
            if done(self) {
                return true;
            }
            self.step();
        }
        done(self)
    }

    /// A BAR0 access, the link running meanwhile.
    pub fn bar(&mut self, offset: u32, write: Option<u32>) -> Result<u32, crate::nic::BarTimeout> {
        self.nic.start_bar(offset, write);
        loop {
            if let Some(r) = self.nic.bar_result() {
                return r;
            }
            self.step();
        }
    }
}
