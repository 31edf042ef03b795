//! `ibv_rc_pingpong`'s traffic on the card's side: one RC QP, one buffer used to send and to
//! receive, `rx_depth` receives kept posted, and SENDs of `size` bytes taking turns with the
//! peer's — the client sends first; each side sends its next once its last SEND completed and
//! the peer's answer arrived, until both counts reach `iters` (as the tool's completion loop).
//!
//! [`Side::poll`] never blocks: it takes what completed and posts what follows, so two sides in
//! one thread (a test) or a side and a real peer (a live link) run by calling it in turn.

use crate::bus::Bus;
use crate::exchange::{gid_v4, Dest};
use crate::verbs::{Context, Cq, DmaBuf, Mr, Qp, QpCaps, RecvWr, SendWr, VerbsError};
use rnic_spec::desc::{send_flags, CqOp, CqStatus, SendOp};
use rnic_spec::mr::access;

/// The tool's work request ids.
pub const RECV_WRID: u64 = 1;
pub const SEND_WRID: u64 = 2;

/// One side of a ping-pong.
pub struct Side<B: Bus> {
    pub ctx: Context<B>,
    pub qp: Qp,
    cq: Cq,
    pub buf: DmaBuf,
    mr: Mr,
    size: u32,
    iters: u32,
    rx_depth: u32,
    /// Receives posted and not completed, SENDs and receives completed.
    routs: u32,
    pub sent: u32,
    pub received: u32,
    /// `SEND_WRID | RECV_WRID` bits of the completions the next SEND waits for.
    pending: u64,
}

impl<B: Bus> Side<B> {
    /// A QP with its buffer of `size` bytes (filled with `fill`, as the tool fills 0x7b).
    pub fn new(mut ctx: Context<B>, size: u32, iters: u32, rx_depth: u32, fill: u8) -> Result<Side<B>, VerbsError> {
        let pd = ctx.alloc_pd()?;
        let buf = ctx.alloc_buf(size.max(1) as usize, 4096)?;
        ctx.write_buf(buf.iova, &vec![fill; size as usize])?;
        let mr = ctx.reg_mr(pd, buf.iova, size.max(1), access::LOCAL_WRITE)?;
        let cq = ctx.create_cq((rx_depth + 1).next_power_of_two())?;
        let qp = ctx.create_qp(pd, &cq, &cq, QpCaps { sq_entries: 2, rq_entries: rx_depth.next_power_of_two() })?;
        Ok(Side { ctx, qp, cq, buf, mr, size, iters, rx_depth, routs: 0, sent: 0, received: 0, pending: 0 })
    }

    /// This side's message for the exchange.
    pub fn dest(&self, psn: u32) -> Dest {
        Dest { lid: 0, qpn: self.qp.qpn, psn, gid: gid_v4(self.ctx.port().ipv4) }
    }

    /// Connect to `theirs`, whose MAC is `mac`, at path MTU `pmtu` (the tool's attributes:
    /// retry and RNR retry 7, one READ / atomic each way; `connect_qp`), post the receives, and
    /// for the client the first SEND.
    pub fn connect(&mut self, theirs: &Dest, mac: [u8; 6], my_psn: u32, pmtu: u32, client: bool) -> Result<(), VerbsError> {
        crate::exchange::connect_qp(&mut self.ctx, &mut self.qp, &theirs.gid, mac, (theirs.qpn, theirs.psn, my_psn), pmtu, (1, 1))?;
        // (Receives go in once the QP is connected: the card's commit empties the queues.)
        self.post_recvs(self.rx_depth)?;
        self.pending = RECV_WRID;
        if client {
            self.post_send()?;
            self.pending = RECV_WRID | SEND_WRID;
        }
        Ok(())
    }

    fn post_recvs(&mut self, n: u32) -> Result<(), VerbsError> {
        let wr = RecvWr { wr_id: RECV_WRID, addr: self.buf.iova, length: self.size, lkey: self.mr.key() };
        self.ctx.post_recv(&mut self.qp, &vec![wr; n as usize])?;
        self.routs += n;
        Ok(())
    }

    fn post_send(&mut self) -> Result<(), VerbsError> {
        let wr = SendWr {
            wr_id: SEND_WRID,
            op: SendOp::Send,
            flags: send_flags::SIGNALED,
            local_addr: self.buf.iova,
            length: self.size,
            lkey: self.mr.key(),
            remote_addr: 0,
            rkey: 0,
            imm: 0,
            atomic: Default::default(),
        };
        self.ctx.post_send(&mut self.qp, &wr)
    }

    /// Both counts reached `iters`.
    pub fn done(&self) -> bool {
        self.sent >= self.iters && self.received >= self.iters
    }

    /// Take the completions there are and post what follows; an error names the completion
    /// that went wrong.
    pub fn poll(&mut self) -> Result<(), String> {
        let wcs = self.ctx.poll_cq(&mut self.cq, 16).map_err(|e| e.to_string())?;
        for wc in wcs {
            if wc.status != CqStatus::Success {
                return Err(format!("Failed status {:?} for wr_id {}", wc.status, wc.wr_id));
            }
            match (wc.wr_id, wc.op) {
                (SEND_WRID, CqOp::Send) => self.sent += 1,
                (RECV_WRID, CqOp::Recv) => {
                    if wc.byte_len != self.size {
                        return Err(format!("a receive of {} bytes, {} expected", wc.byte_len, self.size));
                    }
                    self.routs -= 1;
                    if self.routs <= 1 {
                        self.post_recvs(self.rx_depth - self.routs).map_err(|e| e.to_string())?;
                    }
                    self.received += 1;
                }
                (id, op) => return Err(format!("Completion for unknown wr_id {id} ({op:?})")),
            }
            self.pending &= !wc.wr_id;
            if self.sent < self.iters && self.pending == 0 {
                self.post_send().map_err(|e| e.to_string())?;
                self.pending = RECV_WRID | SEND_WRID;
            }
        }
        Ok(())
    }
}

/// Where a live ping-pong's card sits and whom it plays.
pub struct LiveOpts {
    pub link: crate::live_link::LinkOpts,
    pub size: u32,
    pub iters: u32,
    pub pmtu: u32,
}

/// What a live ping-pong did.
pub struct LiveReport {
    pub local: Dest,
    pub remote: Dest,
    /// Simulated cycles from the first SEND posted to the last completion.
    pub cycles: u64,
    /// The card's status registers that are not zero, at the end.
    pub counters: String,
    pub link: crate::live_link::LinkReport,
}

/// Play `ibv_rc_pingpong` against the tool on the other end of a live link: the exchange over
/// TCP, the peer's MAC by ARP, then the SENDs.
pub fn run_live(o: &LiveOpts) -> Result<LiveReport, String> {
    use crate::exchange::{client, server, ExchangeError};
    use crate::live_link::LiveLink;
    let (link, ctx) = LiveLink::open(&o.link)?;
    let mut side = Side::new(ctx, o.size, o.iters, 500, 0x7b).map_err(|e| e.to_string())?;
    let my_psn = rand::random::<u32>() & 0xFF_FFFF;
    let mine = side.dest(my_psn);
    let server_side = link.is_server();
    let connect = |side: &mut Side<_>, theirs: &Dest| -> Result<(), String> {
        let mac = link.resolve(LiveLink::peer_ip(&theirs.gid)?)?;
        side.connect(theirs, mac, my_psn, o.pmtu, !server_side).map_err(|e| e.to_string())
    };
    let (_stream, theirs) = link.stream(|stream| match server_side {
        // (The server answers once its QP is connected, so the client's first SEND finds it.)
        true => server::<ExchangeError>(stream, &mine, &mut || link.idle(), |theirs| connect(&mut side, theirs).map_err(ExchangeError::Local)),
        false => client(stream, &mine, &mut || link.idle()),
    })?;
    if !server_side {
        connect(&mut side, &theirs)?;
    }
    let start = link.cycles();
    link.run_while(
        || {
            side.poll()?;
            Ok((side.done(), (side.sent, side.received)))
        },
        |(sent, received)| format!("{sent} of {} SENDs and {received} receives", o.iters),
    )?;
    let cycles = link.cycles() - start;
    let link_report = link.finish();
    let counters = side.ctx.dev.nonzero_stats().map_err(|e| e.to_string())?;
    Ok(LiveReport { local: mine, remote: theirs, cycles, counters, link: link_report })
}
