//! perftest's tools on the card's side: the out-of-band exchange of `ib_write_bw`,
//! `ib_send_bw`, `ib_read_bw`, `ib_write_lat` and `ib_atomic_bw` run with `-x GID_INDEX` over
//! Ethernet (no `-R`), wire-compatible with the unmodified tools (perftest 4.5+0.17 as Debian 12
//! ships it, whose exchange announces version "6.06"), and each test's traffic.
//!
//! The exchange (recorded from the Debian binaries, and read in perftest's
//! `perftest_communication.c`): every message has a fixed size; the client writes first and
//! then reads, the server reads first and then writes. In order:
//! 1. the version (16 bytes, a C string, refused below 5.70), the cycle buffer (4 bytes,
//!    big-endian; both use the larger), the cache line (4 bytes), the MTU (2 bytes: the
//!    `ibv_mtu` code as a decimal C string; both use the smaller);
//! 2. the keys, [`KEY_MSG_LEN`] bytes of text ([`Keys`]), three times: both QPs connect after
//!    the first; the test starts after the third;
//! 3. a bandwidth test of WRITE, READ or atomics: the client runs it, the server is passive;
//!    then the keys once more (a barrier), the client's five report values (8 bytes each,
//!    big-endian; the server answers each with 8 bytes it ignores and prints the client's), and
//!    the close: the keys, then `"done"` and its NUL from each side.
//!    SEND: the server posts its receives, the keys (a barrier), the client's SENDs, the close.
//!    `ib_write_lat`: the keys (a barrier), then the ping-pong; no close.
//!
//! Addresses (perftest's `ctx_set_send_wqes`): each side registers two halves of
//! `max(size rounded up to 64, cycle buffer)` bytes and advertises the second; the n-th
//! request goes to `vaddr + n × stride` (stride: the size rounded up to 64) wrapping inside
//! the cycle buffer, or always to `vaddr` when the size is over half the cycle buffer.
//! Atomics (8 bytes): FETCH & ADD adds 1, COMPARE & SWAP compares 0 and swaps 0.

use crate::bus::Bus;
use crate::exchange::{gid_v4, hex_field, read_all, send, ExchangeError};
use crate::verbs::{Context, Cq, DmaBuf, Mr, Qp, QpCaps, RecvWr, SendWr, VerbsError};
use rnic_spec::desc::{send_flags, CqOp, CqStatus, SendOp};
use rnic_spec::mr::access;
use rnic_spec::qp::RD_SLOTS;
use rnic_spec::wire::tx::AtomicArgs;
use std::collections::HashMap;
use std::net::TcpStream;

/// The version the exchange announces (perftest 4.5+0.17's), and the oldest the tools accept.
pub const VERSION: &str = "6.06";
const OLDEST: f64 = 5.70;
/// Bytes of the version message (`MAX_VERSION`).
const VERSION_LEN: usize = 16;
/// The cycle buffer and cache line this side announces (a page; perftest's defaults).
pub const CYCLE_BUFFER: u32 = 4096;
const CACHE_LINE: u32 = 64;
/// Bytes of the keys message: `KEY_PRINT_FMT_GID` and its NUL.
pub const KEY_MSG_LEN: usize = 108;
/// Requests a bandwidth test keeps outstanding (the tools' default `-t`).
pub const TX_DEPTH: u32 = 128;
/// Receives the SEND test's server keeps posted (the tools' default `-r`).
pub const RX_DEPTH: u32 = 512;
/// The largest region a test registers (two halves of its size): perftest's largest `-s` is
/// 8 MiB.
const MAX_REGION: u64 = 1 << 24;

/// The atomic operation of `ib_atomic_bw -A`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicKind {
    FetchAndAdd,
    CmpAndSwap,
}

/// Which tool the card plays against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    WriteBw,
    SendBw,
    ReadBw,
    WriteLat,
    AtomicBw(AtomicKind),
}

impl Test {
    /// The tool's name.
    pub fn tool(self) -> &'static str {
        match self {
            Test::WriteBw => "ib_write_bw",
            Test::SendBw => "ib_send_bw",
            Test::ReadBw => "ib_read_bw",
            Test::WriteLat => "ib_write_lat",
            Test::AtomicBw(_) => "ib_atomic_bw",
        }
    }

    /// The title the tool prints.
    pub fn title(self) -> &'static str {
        match self {
            Test::WriteBw => "RDMA_Write BW Test",
            Test::SendBw => "Send BW Test",
            Test::ReadBw => "RDMA_Read BW Test",
            Test::WriteLat => "RDMA_Write Latency Test",
            Test::AtomicBw(AtomicKind::FetchAndAdd) => "Atomic FETCH_AND_ADD BW Test",
            Test::AtomicBw(AtomicKind::CmpAndSwap) => "Atomic CMP_AND_SWAP BW Test",
        }
    }

    /// READs and atomics this side takes at once (the keys' `out_reads`; the tools advertise
    /// 1 where the test has none).
    fn out_reads(self) -> u16 {
        match self {
            Test::ReadBw | Test::AtomicBw(_) => RD_SLOTS as u16,
            _ => 1,
        }
    }

    /// What the peer may do to the advertised half.
    fn remote_access(self) -> u8 {
        match self {
            Test::WriteBw | Test::WriteLat => access::REMOTE_WRITE,
            Test::SendBw => 0,
            Test::ReadBw => access::REMOTE_READ,
            Test::AtomicBw(_) => access::REMOTE_ATOMIC,
        }
    }
}

/// One side's keys message: `"%04x:%04x:%06x:%06x:%08x:%016llx:"`, the GID as 16 `"%02x:"`,
/// then `"%08x:"` — LID, out_reads, QPN, PSN, rkey, vaddr, GID, SRQ number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keys {
    pub lid: u16,
    pub out_reads: u16,
    pub qpn: u32,
    pub psn: u32,
    pub rkey: u32,
    pub vaddr: u64,
    pub gid: [u8; 16],
    pub srqn: u32,
}

impl Keys {
    pub fn wire(&self) -> [u8; KEY_MSG_LEN] {
        let mut text = format!("{:04x}:{:04x}:{:06x}:{:06x}:{:08x}:{:016x}:", self.lid, self.out_reads, self.qpn & 0xFF_FFFF, self.psn & 0xFF_FFFF, self.rkey, self.vaddr);
        for b in self.gid {
            text += &format!("{b:02x}:");
        }
        text += &format!("{:08x}:", self.srqn);
        let mut out = [0u8; KEY_MSG_LEN];
        out[..text.len()].copy_from_slice(text.as_bytes());
        out
    }

    /// A peer's keys, each field hex that fits its width.
    pub fn parse(msg: &[u8]) -> Result<Keys, ExchangeError> {
        let bad = || ExchangeError::Unexpected { got: format!("{:?}", String::from_utf8_lossy(msg).trim_end_matches('\0')), want: "perftest's keys message (LID:OUT:QPN:PSN:RKEY:VADDR:GID:SRQN)" };
        let text = std::str::from_utf8(msg).map_err(|_| bad())?.split('\0').next().unwrap_or("");
        let fields: Vec<&str> = text.strip_suffix(':').ok_or_else(bad)?.split(':').collect();
        if fields.len() != 23 {
            return Err(bad());
        }
        let num = |s: &str, bits: u32| hex_field(s, bits).ok_or_else(bad);
        let mut gid = [0u8; 16];
        for (g, f) in gid.iter_mut().zip(&fields[6..22]) {
            *g = num(f, 8)? as u8;
        }
        Ok(Keys {
            lid: num(fields[0], 16)? as u16,
            out_reads: num(fields[1], 16)? as u16,
            qpn: num(fields[2], 24)? as u32,
            psn: num(fields[3], 24)? as u32,
            rkey: num(fields[4], 32)? as u32,
            vaddr: num(fields[5], 64)?,
            gid,
            srqn: num(fields[22], 32)? as u32,
        })
    }
}

/// The `ibv_mtu` code of a path MTU in bytes (256 → 1 … 4096 → 5).
pub fn mtu_code(bytes: u32) -> Option<u32> {
    [256, 512, 1024, 2048, 4096].iter().position(|&m| m == bytes).map(|i| i as u32 + 1)
}

/// The text of a C string message (up to its first NUL).
fn c_text(msg: &[u8]) -> &str {
    let end = msg.iter().position(|&b| b == 0).unwrap_or(msg.len());
    std::str::from_utf8(&msg[..end]).unwrap_or("")
}

/// What both sides agreed on before the keys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agreed {
    pub peer_version: f64,
    /// The larger of both sides' cycle buffers and cache lines: requests' addresses step by
    /// the size rounded up to the cache line and wrap inside the cycle buffer.
    pub cycle_buffer: u32,
    pub cache_line: u32,
    pub pmtu: u32,
}

/// The TCP connection to the tool: every message the same size both ways, the client
/// writing first. `idle` runs while a read waits (the card keeps running).
pub struct Conn<'a> {
    pub stream: TcpStream,
    pub server: bool,
    pub idle: &'a mut dyn FnMut() -> bool,
}

impl Conn<'_> {
    /// Send `mine` and take the peer's message of the same size, in the role's order.
    pub fn swap(&mut self, mine: &[u8]) -> Result<Vec<u8>, ExchangeError> {
        swap(&mut self.stream, self.server, mine, self.idle)
    }

    pub fn keys(&mut self, mine: &Keys) -> Result<Keys, ExchangeError> {
        Keys::parse(&self.swap(&mine.wire())?)
    }

    /// The bandwidth report: size, iterations, peak, average (MB/s) and message rate (Mpps),
    /// 8 bytes each. The client sends its own and gets nothing useful back; the server gets
    /// the client's (what the tool's server prints).
    pub fn report(&mut self, mine: &BwResult) -> Result<BwResult, ExchangeError> {
        let mut got = [0u64; 5];
        let values = [mine.size, mine.iters, mine.peak_mbs.to_bits(), mine.avg_mbs.to_bits(), mine.msg_rate_mpps.to_bits()];
        for (g, v) in got.iter_mut().zip(values) {
            *g = u64::from_be_bytes(self.swap(&v.to_be_bytes())?.try_into().expect("8 bytes"));
        }
        Ok(BwResult { size: got[0], iters: got[1], peak_mbs: f64::from_bits(got[2]), avg_mbs: f64::from_bits(got[3]), msg_rate_mpps: f64::from_bits(got[4]) })
    }

    /// The close: the keys once more, then `"done"` each way (the peer's read before closing,
    /// so no reset overtakes its last write).
    pub fn close(mut self, mine: &Keys) -> Result<(), ExchangeError> {
        self.keys(mine)?;
        send(&mut self.stream, b"done\0")?;
        let mut done = [0u8; 5];
        match read_all(&mut self.stream, &mut done, self.idle) {
            Ok(()) if &done == b"done\0" => Ok(()),
            Ok(()) => Err(ExchangeError::Unexpected { got: format!("{:?}", String::from_utf8_lossy(&done)), want: "\"done\"" }),
            // (A tool that closed at once after its "done" is finished too.)
            Err(ExchangeError::Io(e)) if matches!(e.kind(), std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionReset) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

fn swap(stream: &mut TcpStream, server: bool, mine: &[u8], idle: &mut dyn FnMut() -> bool) -> Result<Vec<u8>, ExchangeError> {
    let mut theirs = vec![0u8; mine.len()];
    if server {
        read_all(stream, &mut theirs, idle)?;
        send(stream, mine)?;
    } else {
        send(stream, mine)?;
        read_all(stream, &mut theirs, idle)?;
    }
    Ok(theirs)
}

fn version_msg() -> [u8; VERSION_LEN] {
    let mut v = [0u8; VERSION_LEN];
    v[..VERSION.len()].copy_from_slice(VERSION.as_bytes());
    v
}

/// The peer's version, refused below [`OLDEST`] (as the tools refuse).
fn version(msg: &[u8]) -> Result<f64, ExchangeError> {
    let text = c_text(msg);
    match text.parse::<f64>() {
        Ok(v) if v >= OLDEST => Ok(v),
        _ => Err(ExchangeError::Unexpected { got: format!("version {text:?}"), want: "perftest's version 5.70 or later (the exchange changed there)" }),
    }
}

/// Step 1: version, cycle buffer, cache line and MTU (`pmtu`, this side's, in bytes).
pub fn agree(stream: &mut TcpStream, server: bool, pmtu: u32, idle: &mut dyn FnMut() -> bool) -> Result<Agreed, ExchangeError> {
    let peer_version = version(&swap(stream, server, &version_msg(), idle)?)?;
    let word = |m: Vec<u8>| u32::from_be_bytes(m.try_into().expect("4 bytes"));
    let cycle_buffer = word(swap(stream, server, &CYCLE_BUFFER.to_be_bytes(), idle)?);
    let cache_line = word(swap(stream, server, &CACHE_LINE.to_be_bytes(), idle)?);
    if !(64..=1 << 24).contains(&cycle_buffer) || !cycle_buffer.is_power_of_two() {
        return Err(ExchangeError::Unexpected { got: format!("cycle buffer {cycle_buffer}"), want: "a power of two from 64 to 16 MiB" });
    }
    if !(1..=4096).contains(&cache_line) || !cache_line.is_power_of_two() {
        return Err(ExchangeError::Unexpected { got: format!("cache line {cache_line}"), want: "a power of two up to 4096" });
    }
    let mine = mtu_code(pmtu).expect("a valid path MTU");
    let msg = swap(stream, server, &[b'0' + mine as u8, 0], idle)?;
    let theirs = c_text(&msg).parse::<u32>().ok().filter(|c| (1..=5).contains(c));
    // (The tools' rule: the peer's when it is valid and smaller.)
    let code = theirs.filter(|&t| t < mine).unwrap_or(mine);
    Ok(Agreed { peer_version, cycle_buffer: cycle_buffer.max(CYCLE_BUFFER), cache_line: cache_line.max(CACHE_LINE), pmtu: 128 << code })
}

/// A bandwidth test's result line (the tool's columns; MB is 2^20 bytes as the tool's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BwResult {
    pub size: u64,
    pub iters: u64,
    pub peak_mbs: f64,
    pub avg_mbs: f64,
    pub msg_rate_mpps: f64,
}

impl BwResult {
    /// `iters` messages of `size` bytes in `cycles` simulated cycles at 250 MHz. (The peak
    /// is the average: the card does not time single requests.)
    pub fn from_cycles(size: u32, iters: u32, cycles: u64) -> BwResult {
        let secs = cycles.max(1) as f64 / (rnic_sim::bench::CLOCK_MHZ * 1e6);
        let avg = size as f64 * iters as f64 / secs / (1u64 << 20) as f64;
        BwResult { size: size as u64, iters: iters as u64, peak_mbs: avg, avg_mbs: avg, msg_rate_mpps: iters as f64 / secs / 1e6 }
    }

    /// Messages of `size` bytes posted at the cycles `posted` and completed at `completed`
    /// (simulated cycles at 250 MHz, each list in order, as many of each), reduced as
    /// perftest's bandwidth tools do: the average from the first post to the last completion,
    /// the peak over the best run of consecutive messages i..=j, (completed[j] - posted[i]) /
    /// (j - i + 1) per message, and the average message rate. `None` without messages.
    pub fn from_times(size: u32, posted: &[u64], completed: &[u64]) -> Option<BwResult> {
        let n = posted.len().min(completed.len());
        if n == 0 {
            return None;
        }
        let per_second = rnic_sim::bench::CLOCK_MHZ * 1e6;
        let mbs = |cycles_per_msg: f64| size as f64 / (cycles_per_msg.max(1e-9) / per_second) / (1u64 << 20) as f64;
        let span = completed[n - 1].saturating_sub(posted[0]).max(1) as f64;
        let best = (0..n)
            .flat_map(|i| (i..n).map(move |j| (i, j)))
            .map(|(i, j)| completed[j].saturating_sub(posted[i]).max(1) as f64 / (j - i + 1) as f64)
            .fold(f64::INFINITY, f64::min);
        Some(BwResult {
            size: size as u64,
            iters: n as u64,
            peak_mbs: mbs(best),
            avg_mbs: mbs(span / n as f64),
            msg_rate_mpps: n as f64 / (span / per_second) / 1e6,
        })
    }

    /// A bandwidth in the tool's MB/s (2^20 bytes) as Gb/s (10^9 bits), as `--report_gbits`.
    pub fn gbps(mbs: f64) -> f64 {
        mbs * (1u64 << 20) as f64 * 8.0 / 1e9
    }
}

/// The card's side of a test: one RC QP, its CQ, and a buffer of two halves (the local one,
/// then the one advertised to the peer) in one region.
pub struct PerfSide<B: Bus> {
    pub ctx: Context<B>,
    pub qp: Qp,
    cq: Cq,
    pub buf: DmaBuf,
    mr: Mr,
    test: Test,
    size: u32,
    iters: u32,
    /// Bytes of each half, the cycle buffer the addresses wrap in, and the step between them.
    half: u64,
    cycle: u64,
    stride: u64,
    /// Requests (or receives) posted and completed.
    pub posted: u32,
    pub completed: u32,
    peer: Option<Keys>,
    /// Atomics: the last original value seen at each remote word, to check the next against.
    words: HashMap<u64, u64>,
    /// `ib_write_lat`'s loop (`run_iter_lat_write`).
    lat: Lat,
    /// Simulated cycle at each latency post (`tposted`).
    pub posts: Vec<u64>,
}

/// Where `ib_write_lat`'s loop stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Lat {
    sent: u32,
    received: u32,
    completed: u32,
    phase: LatPhase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum LatPhase {
    /// Decide whether to wait for the peer's next WRITE.
    #[default]
    Top,
    /// The last byte of the advertised half must become the count of the peer's next WRITE.
    Wait,
    Post,
    /// The WRITE just posted must complete.
    Complete,
}

impl<B: Bus> PerfSide<B> {
    /// The QP and buffer for `test`, addressed as `agreed` says.
    pub fn new(mut ctx: Context<B>, test: Test, size: u32, iters: u32, agreed: &Agreed) -> Result<PerfSide<B>, VerbsError> {
        let size = if matches!(test, Test::AtomicBw(_)) { 8 } else { size };
        let stride = size.div_ceil(agreed.cache_line) as u64 * agreed.cache_line as u64;
        let half = stride.max(agreed.cycle_buffer as u64);
        if 2 * half > MAX_REGION {
            return Err(VerbsError::BadAttribute("size", format!("{size} bytes need a region of {} MiB, more than {} MiB", (2 * half) >> 20, MAX_REGION >> 20)));
        }
        let pd = ctx.alloc_pd()?;
        let buf = ctx.alloc_buf(2 * half as usize, 4096)?;
        // (The local half: a pattern to send; the advertised half zero, as `ib_write_lat`
        // needs for its first poll.)
        let pattern: Vec<u8> = (0..half).map(|i| (i as u8).wrapping_mul(31).wrapping_add(7)).collect();
        ctx.write_buf(buf.iova, &pattern)?;
        ctx.write_buf(buf.iova + half, &vec![0; half as usize])?;
        let mr = ctx.reg_mr(pd, buf.iova, 2 * half as u32, access::LOCAL_WRITE | test.remote_access())?;
        let cq = ctx.create_cq(1024)?;
        let qp = ctx.create_qp(pd, &cq, &cq, QpCaps { sq_entries: 2 * TX_DEPTH, rq_entries: RX_DEPTH })?;
        let lat = Lat::default();
        Ok(PerfSide { ctx, qp, cq, buf, mr, test, size, iters, half, cycle: agreed.cycle_buffer as u64, stride, posted: 0, completed: 0, peer: None, words: HashMap::new(), lat, posts: Vec::new() })
    }

    /// This side's keys.
    pub fn keys(&self, psn: u32) -> Keys {
        Keys { lid: 0, out_reads: self.test.out_reads(), qpn: self.qp.qpn, psn, rkey: self.mr.key(), vaddr: self.buf.iova + self.half, gid: gid_v4(self.ctx.port().ipv4), srqn: 0 }
    }

    /// Connect to the peer's keys as the tools connect (READs and atomics at once as the
    /// peer takes them, up to the card's 8). The peer's advertised half must fit its address
    /// space.
    pub fn connect(&mut self, theirs: &Keys, mac: [u8; 6], my_psn: u32, pmtu: u32) -> Result<(), VerbsError> {
        if theirs.vaddr.checked_add(self.half).is_none() {
            return Err(VerbsError::BadAttribute("vaddr", format!("the peer's {:#x} and {} bytes after it pass the end of a 64-bit address space", theirs.vaddr, self.half)));
        }
        let rd = (self.test.out_reads() as u8, theirs.out_reads.clamp(1, RD_SLOTS as u16) as u8);
        crate::exchange::connect_qp(&mut self.ctx, &mut self.qp, &theirs.gid, mac, (theirs.qpn, theirs.psn, my_psn), pmtu, rd)?;
        self.peer = Some(*theirs);
        Ok(())
    }

    /// The offset of the n-th request inside a half: the tools step by the stride and start
    /// again where another stride would not fit the cycle buffer (`increase_rem_addr`), or
    /// stay at the start when the size is over half of it.
    fn offset(&self, n: u32) -> u64 {
        request_offset(n, self.size, self.cycle, self.stride)
    }

    /// The SEND test's server: post the first receives (before the barrier that lets the
    /// client send).
    pub fn post_receives(&mut self) -> Result<(), VerbsError> {
        let n = RX_DEPTH.min(self.iters);
        let wrs: Vec<RecvWr> = (0..n).map(|k| self.recv_wr(k)).collect();
        self.ctx.post_recv(&mut self.qp, &wrs)?;
        self.posted = n;
        Ok(())
    }

    fn recv_wr(&self, n: u32) -> RecvWr {
        RecvWr { wr_id: n as u64, addr: self.buf.iova + self.half + self.offset(n), length: self.size, lkey: self.mr.key() }
    }

    /// The n-th request of a bandwidth test.
    fn send_wr(&self, n: u32) -> SendWr {
        let peer = self.peer.expect("connected");
        let (op, atomic) = match self.test {
            Test::WriteBw | Test::WriteLat => (SendOp::Write, AtomicArgs::default()),
            Test::SendBw => (SendOp::Send, AtomicArgs::default()),
            Test::ReadBw => (SendOp::Read, AtomicArgs::default()),
            Test::AtomicBw(AtomicKind::FetchAndAdd) => (SendOp::FetchAdd, AtomicArgs { value: 1, compare: 0 }),
            Test::AtomicBw(AtomicKind::CmpAndSwap) => (SendOp::CmpSwap, AtomicArgs { value: 0, compare: 0 }),
        };
        // (An atomic's original value lands in a slot of its own until it is checked.)
        let local = match self.test {
            Test::AtomicBw(_) => (n % TX_DEPTH) as u64 * 8,
            _ => self.offset(n),
        };
        SendWr {
            wr_id: n as u64,
            op,
            flags: send_flags::SIGNALED,
            local_addr: self.buf.iova + local,
            length: self.size,
            lkey: self.mr.key(),
            remote_addr: peer.vaddr + self.offset(n),
            rkey: peer.rkey,
            imm: 0,
            atomic,
        }
    }

    /// All requests (or receives) completed.
    pub fn done(&self) -> bool {
        match self.test {
            Test::WriteLat => self.lat.sent >= self.iters && self.lat.received >= self.iters && self.lat.completed >= self.iters,
            _ => self.completed >= self.iters,
        }
    }

    /// A bandwidth test's client: post while fewer than [`TX_DEPTH`] are outstanding, take
    /// the completions, check each. The SEND test's server: take receives, post the next.
    pub fn poll_bw(&mut self, receiving: bool) -> Result<(), String> {
        let wcs = self.ctx.poll_cq(&mut self.cq, 64).map_err(|e| e.to_string())?;
        for wc in wcs {
            if wc.status != CqStatus::Success {
                return Err(format!("completion with error: {:?} for request {} ({:?})", wc.status, wc.wr_id, wc.op));
            }
            if wc.wr_id != self.completed as u64 {
                return Err(format!("completion of request {} where {} was next", wc.wr_id, self.completed));
            }
            let want = match (receiving, self.test) {
                (true, _) => CqOp::Recv,
                (false, Test::WriteBw) => CqOp::Write,
                (false, Test::SendBw) => CqOp::Send,
                (false, Test::ReadBw) => CqOp::Read,
                (false, Test::AtomicBw(AtomicKind::FetchAndAdd)) => CqOp::FetchAdd,
                (false, Test::AtomicBw(AtomicKind::CmpAndSwap)) => CqOp::CmpSwap,
                (false, Test::WriteLat) => CqOp::Write,
            };
            if wc.op != want || (receiving && wc.byte_len != self.size) {
                return Err(format!("request {} completed as {:?} of {} bytes, {want:?} of {} expected", wc.wr_id, wc.op, wc.byte_len, self.size));
            }
            if let Test::AtomicBw(kind) = self.test {
                self.check_atomic(kind, wc.wr_id as u32)?;
            }
            self.completed += 1;
            if receiving && self.posted < self.iters {
                let wr = self.recv_wr(self.posted);
                self.ctx.post_recv(&mut self.qp, &[wr]).map_err(|e| e.to_string())?;
                self.posted += 1;
            }
        }
        while !receiving && self.posted < self.iters && self.posted - self.completed < TX_DEPTH {
            let wr = self.send_wr(self.posted);
            if matches!(self.test, Test::AtomicBw(_)) {
                // (A value no answer carries, so one never written back is seen.)
                self.ctx.write_buf(wr.local_addr, &unwritten(self.posted).to_le_bytes()).map_err(|e| e.to_string())?;
            }
            self.ctx.post_send(&mut self.qp, &wr).map_err(|e| e.to_string())?;
            self.posted += 1;
        }
        Ok(())
    }

    /// The original value of atomic `n` against the last one seen at its word: FETCH & ADD
    /// of 1 found one more, COMPARE & SWAP of 0 with 0 found the same.
    fn check_atomic(&mut self, kind: AtomicKind, n: u32) -> Result<(), String> {
        let got = self.ctx.read_buf(self.buf.iova + (n % TX_DEPTH) as u64 * 8, 8).map_err(|e| e.to_string())?;
        let value = u64::from_le_bytes(got.try_into().expect("8 bytes"));
        let word = self.offset(n);
        if value == unwritten(n) {
            return Err(format!("atomic {n} at remote offset {word:#x} completed, but its original value was not written back"));
        }
        if let Some(last) = self.words.insert(word, value) {
            let want = match kind {
                AtomicKind::FetchAndAdd => last.wrapping_add(1),
                AtomicKind::CmpAndSwap => last,
            };
            if value != want {
                return Err(format!("atomic {n} at remote offset {word:#x} returned {value:#x}, {want:#x} expected (the previous returned {last:#x})"));
            }
        }
        Ok(())
    }

    /// `ib_write_lat`'s loop, one step: the server writes first; each side writes its n-th
    /// WRITE (`size` bytes, the last one n) once the peer's n-th has landed in its advertised
    /// half, and waits for each WRITE's completion; `now` (simulated cycles) times the posts.
    pub fn poll_lat(&mut self, server: bool, now: u64) -> Result<(), String> {
        loop {
            match self.lat.phase {
                LatPhase::Top => {
                    if self.done() {
                        return Ok(());
                    }
                    let wait = self.lat.received < self.iters && !(self.lat.sent < 1 && server);
                    self.lat.phase = if wait { LatPhase::Wait } else { LatPhase::Post };
                }
                LatPhase::Wait => {
                    let last = self.ctx.read_buf(self.buf.iova + self.half + self.size as u64 - 1, 1).map_err(|e| e.to_string())?;
                    if last[0] != (self.lat.received + 1) as u8 {
                        return Ok(());
                    }
                    self.lat.received += 1;
                    self.lat.phase = LatPhase::Post;
                }
                LatPhase::Post => {
                    if self.lat.sent < self.iters {
                        self.lat.sent += 1;
                        self.ctx.write_buf(self.buf.iova + self.size as u64 - 1, &[self.lat.sent as u8]).map_err(|e| e.to_string())?;
                        let wr = SendWr { wr_id: self.lat.sent as u64, ..self.send_wr(0) };
                        self.posts.push(now);
                        self.ctx.post_send(&mut self.qp, &wr).map_err(|e| e.to_string())?;
                    }
                    self.lat.phase = LatPhase::Complete;
                }
                LatPhase::Complete => {
                    if self.lat.completed < self.lat.sent {
                        let wcs = self.ctx.poll_cq(&mut self.cq, 1).map_err(|e| e.to_string())?;
                        let Some(wc) = wcs.first() else { return Ok(()) };
                        if wc.status != CqStatus::Success || wc.op != CqOp::Write || wc.wr_id != (self.lat.completed + 1) as u64 {
                            return Err(format!("WRITE {} completed as {:?} {:?}", wc.wr_id, wc.op, wc.status));
                        }
                        self.lat.completed += 1;
                    }
                    self.lat.phase = LatPhase::Top;
                }
            }
        }
    }

    /// Progress, for the stall message: (posted, completed, received).
    pub fn progress(&self) -> (u32, u32, u32) {
        match self.test {
            Test::WriteLat => (self.lat.sent, self.lat.completed, self.lat.received),
            _ => (self.posted, self.completed, 0),
        }
    }
}

/// The offset of the n-th request of `size` bytes in a half: see [`PerfSide::offset`].
fn request_offset(n: u32, size: u32, cycle: u64, stride: u64) -> u64 {
    match size as u64 <= cycle / 2 {
        true => n as u64 % (cycle / stride) * stride,
        false => 0,
    }
}

/// What an atomic's result slot holds until its answer lands.
fn unwritten(n: u32) -> u64 {
    0x5a5a_0bad_0000_0000 | n as u64
}

/// A latency test's figures in µs (half round trips, as the tool's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatResult {
    pub size: u64,
    pub iters: u64,
    pub min: f64,
    pub max: f64,
    pub typical: f64,
    pub avg: f64,
    pub stdev: f64,
    pub p99: f64,
    pub p999: f64,
}

impl LatResult {
    /// From the simulated cycle of each post: half of each post-to-post interval.
    pub fn from_posts(size: u32, posts: &[u64]) -> Option<LatResult> {
        let half_us = posts.windows(2).map(|w| (w[1] - w[0]) as f64 / rnic_sim::bench::CLOCK_MHZ / 2.0).collect();
        LatResult::from_samples(size, posts.len() as u64, half_us)
    }

    /// From latencies in µs (`iters` is what the tool's line says it ran).
    pub fn from_samples(size: u32, iters: u64, mut d: Vec<f64>) -> Option<LatResult> {
        if d.is_empty() {
            return None;
        }
        d.sort_by(|a, b| a.total_cmp(b));
        let n = d.len() as f64;
        let avg = d.iter().sum::<f64>() / n;
        let stdev = (d.iter().map(|x| (x - avg).powi(2)).sum::<f64>() / n).sqrt();
        let pct = |p: f64| d[((n * p).ceil() as usize).clamp(1, d.len()) - 1];
        Some(LatResult { size: size as u64, iters, min: d[0], max: d[d.len() - 1], typical: d[d.len() / 2], avg, stdev, p99: pct(0.99), p999: pct(0.999) })
    }
}

/// Where the card sits and which test it plays.
pub struct PerfOpts {
    pub link: crate::live_link::LinkOpts,
    pub test: Test,
    pub size: u32,
    pub iters: u32,
    /// This side's path MTU in bytes (the smaller of both sides' is used).
    pub pmtu: u32,
}

/// A test's figures: the card's own (in simulated time at 250 MHz), or for a bandwidth
/// test's server the client's report (what the tool's server prints too).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PerfResult {
    Bw { result: BwResult, from_peer: bool },
    Lat(LatResult),
}

/// What a live test did.
pub struct PerfReport {
    pub local: Keys,
    pub remote: Keys,
    pub agreed: Agreed,
    pub card_is_server: bool,
    pub result: PerfResult,
    /// The card's status registers that are not zero, at the end.
    pub counters: String,
    pub link: crate::live_link::LinkReport,
}

/// Play one side of a perftest tool against the tool on the other end of a live link.
pub fn run_live(o: &PerfOpts) -> Result<PerfReport, String> {
    use crate::live_link::LiveLink;
    let (link, ctx) = LiveLink::open(&o.link)?;
    let server = link.is_server();
    // (The card runs while a message is awaited: the peer's stack ARPs, its QP sends.)
    let (stream, agreed) = link.stream(|s| agree(s, server, o.pmtu, &mut || link.idle()))?;
    let mut idle = || link.idle();
    let mut conn = Conn { stream, server, idle: &mut idle };
    let mut side = PerfSide::new(ctx, o.test, o.size, o.iters, &agreed).map_err(|e| e.to_string())?;
    let psn = rand::random::<u32>() & 0xFF_FFFF;
    let mine = side.keys(psn);
    let theirs = conn.keys(&mine)?;
    let mac = link.resolve(LiveLink::peer_ip(&theirs.gid)?)?;
    side.connect(&theirs, mac, psn, agreed.pmtu).map_err(|e| e.to_string())?;
    conn.keys(&mine)?;
    conn.keys(&mine)?;
    let stalled = |(posted, completed, received): (u32, u32, u32)| format!("{posted} of {} requests posted, {completed} completed, {received} received", o.iters);
    let start = std::cell::Cell::new(0);
    let run = |side: &mut PerfSide<_>, receiving: bool| {
        start.set(link.cycles());
        link.run_while(
            || {
                match o.test {
                    Test::WriteLat => side.poll_lat(server, link.cycles())?,
                    _ => side.poll_bw(receiving)?,
                }
                Ok((side.done(), side.progress()))
            },
            stalled,
        )
    };
    let own = |side: &PerfSide<_>| BwResult::from_cycles(side.size, o.iters, link.cycles() - start.get());
    let result = match (o.test, server) {
        (Test::WriteLat, _) => {
            conn.keys(&mine)?;
            run(&mut side, false)?;
            PerfResult::Lat(LatResult::from_posts(o.size, &side.posts).ok_or("one iteration has no round trip: give -n 2 or more")?)
        }
        (Test::SendBw, _) => {
            if server {
                side.post_receives().map_err(|e| e.to_string())?;
            }
            conn.keys(&mine)?;
            run(&mut side, server)?;
            let r = own(&side);
            conn.close(&mine)?;
            PerfResult::Bw { result: r, from_peer: false }
        }
        (_, false) => {
            run(&mut side, false)?;
            let r = own(&side);
            conn.keys(&mine)?;
            conn.report(&r)?;
            conn.close(&mine)?;
            PerfResult::Bw { result: r, from_peer: false }
        }
        (_, true) => {
            // (Passive: the card answers while it waits for the client's barrier.)
            conn.keys(&mine)?;
            let zero = BwResult { size: 0, iters: 0, peak_mbs: 0.0, avg_mbs: 0.0, msg_rate_mpps: 0.0 };
            let r = conn.report(&zero)?;
            conn.close(&mine)?;
            // (The client's report says what it did: what the card was told to expect.)
            if (r.size, r.iters) != (side.size as u64, o.iters as u64) {
                return Err(format!("the client reports {} messages of {} bytes; the card expected -n {} of -s {} (give both sides the same -s and -n)", r.iters, r.size, o.iters, side.size));
            }
            PerfResult::Bw { result: r, from_peer: true }
        }
    };
    let link_report = link.finish();
    let counters = side.ctx.dev.nonzero_stats().map_err(|e| e.to_string())?;
    Ok(PerfReport { local: mine, remote: theirs, agreed, card_is_server: server, result, counters, link: link_report })
}

/// The tool's lines for `r`: title, the addresses, the column header and the result.
pub fn report_text(test: Test, r: &PerfReport) -> String {
    let line = "-".repeat(87);
    let mut out = format!("{line}\n                    {}\n", test.title());
    out += &format!(" Connection type : RC\t\tMtu : {}[B]\t\tLink type : Ethernet\n{line}\n", r.agreed.pmtu);
    for (what, k) in [("local", &r.local), ("remote", &r.remote)] {
        // (C's "%#0Nx": no 0x before a zero.)
        let hex = |v: u64, w: usize| if v == 0 { format!("{:0w$x}", 0) } else { format!("{v:#0w$x}") };
        out += &format!(" {what} address: LID {} QPN {} PSN {} RKey {} VAddr {}\n", hex(k.lid as u64, 4), hex(k.qpn as u64, 6), hex(k.psn as u64, 6), hex(k.rkey as u64, 8), hex(k.vaddr, 16));
        out += &format!(" GID: {}\n", k.gid.iter().map(|b| format!("{b:02}")).collect::<Vec<_>>().join(":"));
    }
    out += &format!("{line}\n");
    match r.result {
        PerfResult::Bw { result: b, from_peer } => {
            out += " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n";
            out += &format!(" {:<7}    {:<10}       {:<7.2}            {:<7.2}\t\t   {:<7.6}\n", b.size, b.iters, b.peak_mbs, b.avg_mbs, b.msg_rate_mpps);
            out += match from_peer {
                true => " (the client's report, as the tool's server prints it)\n",
                false => " (the card's simulated time at 250 MHz)\n",
            };
        }
        PerfResult::Lat(l) => {
            out += " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n";
            out += &format!(" {:<7} {}          {:<7.2}        {:<7.2}      {:<7.2}  \t       {:<7.2}     \t{:<7.2}\t\t{:<7.2} \t\t{:<7.2}\n", l.size, l.iters, l.min, l.max, l.typical, l.avg, l.stdev, l.p99, l.p999);
            out += " (the card's simulated time at 250 MHz; the peer's turn is in it)\n";
        }
    }
    out + &format!("{line}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn keys_are_the_tools_bytes() {
        // A keys message of the Debian tool (recorded): QPN 0x122, PSN 0x87e313, rkey 0x1100.
        let tool = b"0000:0001:000122:87e313:00001100:00007faef8724000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:00:21:00000000:";
        let mut msg = tool.to_vec();
        msg.push(0);
        assert_eq!(msg.len(), KEY_MSG_LEN);
        let k = Keys::parse(&msg).unwrap();
        assert_eq!(k, Keys { lid: 0, out_reads: 1, qpn: 0x122, psn: 0x87e313, rkey: 0x1100, vaddr: 0x7faef8724000, gid: gid_v4([10, 0, 0, 0x21]), srqn: 0 });
        assert_eq!(k.wire().to_vec(), msg);
        let bad: [&[u8]; 5] = [
            b"0000:0001:000122:87e313:00001100:00007faef8724000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:00:21:",
            b"0000:0001:1000122:87e313:00001100:00007faef8724000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:00:21:00000000:",
            b"0000:0001:000122:87e313:00001100:00007faef8724000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:00:121:00000000:",
            b"0000:0001:000122:87e313:00001100:00007faef8724000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:00:2g:00000000:",
            b"0000:000011:de98cc:00000000000000000000ffffc0000201",
        ];
        for b in bad {
            let e = Keys::parse(b).unwrap_err().to_string();
            assert!(e.contains("perftest's keys message"), "{e}");
        }
    }

    #[test]
    fn the_exchange_is_the_tools_in_both_roles() {
        // The tool's side played with the bytes the Debian binaries send (recorded with
        // strace): version "6.06", cycle buffer 4096, MTU code 3 (1024); its cache line 128
        // here (the larger of both is used).
        let tool_keys = Keys { lid: 0, out_reads: 16, qpn: 0x11, psn: 0xabcdef, rkey: 0x1234, vaddr: 0x7f00_0000_1000, gid: gid_v4([192, 0, 2, 1]), srqn: 0 };
        let card_keys = Keys { lid: 0, out_reads: 8, qpn: 0x2, psn: 0x123456, rkey: 0x99, vaddr: 0x10_0000, gid: gid_v4([192, 0, 2, 2]), srqn: 0 };
        for card_is_server in [false, true] {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let at = listener.local_addr().unwrap();
            let (card_listener, tool_listener) = if card_is_server { (Some(listener), None) } else { (None, Some(listener)) };
            let tool = std::thread::spawn(move || {
                let mut s = match tool_listener {
                    Some(l) => l.accept().unwrap().0,
                    None => TcpStream::connect(at).unwrap(),
                };
                let tool_server = !card_is_server;
                let mut t = |m: &[u8]| swap(&mut s, tool_server, m, &mut || false).unwrap();
                let mut got = vec![t(&version_msg()), t(&[0, 0, 0x10, 0]), t(&[0, 0, 0, 0x80]), t(b"3\0")];
                for _ in 0..2 {
                    got.push(t(&tool_keys.wire()));
                }
                got.push(t(&7u64.to_be_bytes()));
                got
            });
            let stream = match card_listener {
                Some(l) => l.accept().unwrap().0,
                None => TcpStream::connect(at).unwrap(),
            };
            let mut conn = Conn { stream, server: card_is_server, idle: &mut || false };
            let agreed = agree(&mut conn.stream, conn.server, 4096, conn.idle).unwrap();
            assert_eq!(agreed, Agreed { peer_version: 6.06, cycle_buffer: 4096, cache_line: 128, pmtu: 1024 });
            assert_eq!(conn.keys(&card_keys).unwrap(), tool_keys);
            assert_eq!(conn.keys(&card_keys).unwrap(), tool_keys);
            assert_eq!(conn.swap(&9u64.to_be_bytes()).unwrap(), 7u64.to_be_bytes());
            let got = tool.join().unwrap();
            assert_eq!(got[0], version_msg());
            assert_eq!((&got[1][..], &got[2][..], &got[3][..]), (&[0, 0, 0x10, 0][..], &[0, 0, 0, 0x40][..], &b"5\0"[..]));
            assert_eq!((Keys::parse(&got[4]).unwrap(), Keys::parse(&got[5]).unwrap()), (card_keys, card_keys));
            assert_eq!(got[6], 9u64.to_be_bytes());
        }
    }

    #[test]
    fn old_versions_and_odd_buffers_are_refused_by_name() {
        assert!(version(b"5.60\0").unwrap_err().to_string().contains("5.70 or later"));
        assert!(version(b"\0").is_err());
        assert_eq!(version(b"6.06\0\0\0").unwrap(), 6.06);
        assert_eq!(mtu_code(1024), Some(3));
        assert_eq!(mtu_code(1500), None);
    }

    #[test]
    fn requests_cycle_inside_the_buffer_as_the_tools_do() {
        // -s 300: stride 320, 12 strides in 4096, so the 13th request is at the start again.
        assert_eq!((0..14).map(|n| request_offset(n, 300, 4096, 320)).collect::<Vec<_>>(), [0, 320, 640, 960, 1280, 1600, 1920, 2240, 2560, 2880, 3200, 3520, 0, 320]);
        // Over half the cycle buffer: always at the start.
        assert_eq!(request_offset(7, 2049, 4096, 2112), 0);
        // No request of any size passes the end of its half (max(stride, cycle buffer)).
        for size in 1..=9000u32 {
            for cache in [64u64, 128] {
                let stride = (size as u64).div_ceil(cache) * cache;
                let half = stride.max(4096);
                assert!((0..300).all(|n| request_offset(n, size, 4096, stride) + size as u64 <= half), "-s {size}");
            }
        }
    }

    #[test]
    fn latency_figures_are_half_round_trips() {
        // Posts 500, 1000 and 1750 cycles apart: half round trips of 1, 2 and 3.5 µs at 250 MHz.
        let r = LatResult::from_posts(64, &[0, 500, 1500, 3250]).unwrap();
        assert_eq!((r.min, r.max, r.typical, r.iters), (1.0, 3.5, 2.0, 4));
        assert!((r.avg - 6.5 / 3.0).abs() < 1e-9);
        assert_eq!((r.p99, r.p999), (3.5, 3.5));
        assert!(LatResult::from_posts(64, &[7]).is_none());
        let bw = BwResult::from_cycles(1 << 20, 4, 250_000_000);
        assert_eq!((bw.avg_mbs, bw.msg_rate_mpps), (4.0, 4e-6));
    }

    #[test]
    fn bandwidth_peak_is_the_best_run_of_consecutive_messages() {
        // Four 1 MiB messages, all posted at 0, done at 250, 300, 350 and 1000 cycles: the
        // average spans 1000 cycles (4 µs: 1 MiB per µs), the best run is messages 0..=2,
        // 350 cycles for three (1.4 µs / 3 per MiB).
        let bw = BwResult::from_times(1 << 20, &[0; 4], &[250, 300, 350, 1000]).unwrap();
        assert!((bw.avg_mbs - 1e6).abs() < 1e-3, "{bw:?}");
        assert!((bw.peak_mbs - 3e6 / 1.4).abs() < 1e-3, "{bw:?}");
        assert!((bw.msg_rate_mpps - 1.0).abs() < 1e-9);
        // A later post shortens the run that starts with it: message 3 alone, posted at 900.
        let bw = BwResult::from_times(1 << 20, &[0, 0, 0, 900], &[250, 300, 350, 910]).unwrap();
        assert!((bw.peak_mbs - 1e6 / 0.04).abs() < 1e-3, "{bw:?}");
        assert!(BwResult::from_times(64, &[], &[]).is_none());
        assert!((BwResult::gbps(1e3) - 8.388608).abs() < 1e-9);
    }
}
