//! `ibv_rc_pingpong`'s traffic on the card's side: one RC QP, one buffer used to send and to
//! receive, `rx_depth` receives kept posted, and SENDs of `size` bytes taking turns with the
//! peer's — the client sends first; each side sends its next once its last SEND completed and
//! the peer's answer arrived, until both counts reach `iters` (as the tool's completion loop).
//!
//! [`Side::poll`] never blocks: it takes what completed and posts what follows, so two sides in
//! one thread (a test) or a side and a real peer (a live link) run by calling it in turn.

use crate::bus::Bus;
use crate::exchange::{gid_v4, Dest};
use crate::verbs::{Context, Cq, DmaBuf, Mr, Path, Qp, QpAttr, QpCaps, QpState, RecvWr, SendWr, VerbsError};
use rnic_spec::desc::{send_flags, CqOp, CqStatus, SendOp};
use rnic_spec::mr::access;
use rnic_spec::qp::RemoteIp;

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
    /// timeout 14, retry and RNR retry 7, one READ / atomic each way), post the receives, and
    /// for the client the first SEND.
    pub fn connect(&mut self, theirs: &Dest, mac: [u8; 6], my_psn: u32, pmtu: u32, client: bool) -> Result<(), VerbsError> {
        let ip: [u8; 4] = theirs.gid[12..].try_into().expect("4 bytes");
        if theirs.gid != gid_v4(ip) {
            return Err(VerbsError::BadAttribute("gid", "only IPv4-mapped RoCE v2 GIDs are routed (use the tool's -g index of the IPv4 GID)".into()));
        }
        let path = Path { dest_mac: mac, remote_ip: RemoteIp::V4(ip), vlan: None, dscp: 0, ecn: 0, hop_limit: 64, flow_label: 0 };
        self.ctx.modify_qp(&mut self.qp, QpState::Init, &QpAttr::default())?;
        let rtr = QpAttr { path: Some(path), pmtu: Some(pmtu), dest_qpn: Some(theirs.qpn), rq_psn: Some(theirs.psn), max_dest_rd_atomic: Some(1), ..Default::default() };
        self.ctx.modify_qp(&mut self.qp, QpState::Rtr, &rtr)?;
        let rts = QpAttr { sq_psn: Some(my_psn), timeout: Some(14), retry_cnt: Some(7), rnr_retry: Some(7), max_rd_atomic: Some(1), ..Default::default() };
        self.ctx.modify_qp(&mut self.qp, QpState::Rts, &rts)?;
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
    /// The card's datagram socket, and the peer's (QEMU's `local.path` / `remote.path`).
    pub card_sock: std::path::PathBuf,
    pub peer_sock: std::path::PathBuf,
    pub mac: [u8; 6],
    pub ip: [u8; 4],
    /// Wait for the tool to connect here (`ibv_rc_pingpong HOST`), or connect to the tool's
    /// server (`ibv_rc_pingpong` without a host).
    pub listen: Option<std::net::SocketAddr>,
    pub connect: Option<std::net::SocketAddr>,
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
    pub arp: rnic_sim::live::ArpCounts,
    /// Frames the link's socket refused (no peer there), and datagrams too long to take.
    pub send_errors: u64,
    pub oversize: u64,
    /// Every frame that crossed the link, both ways.
    pub pcap: Vec<u8>,
}

/// Play `ibv_rc_pingpong` against the tool on the other end of a live link: the exchange over
/// TCP, the peer's MAC by ARP, then the SENDs. The card keeps running while it waits for the
/// peer (who may ARP for it meanwhile), and for a while after its last completion, so its last
/// ACK leaves before the process does.
pub fn run_live(o: &LiveOpts) -> Result<LiveReport, String> {
    use crate::exchange::{connect_client, server, PATIENCE};
    use crate::sim_bus::LiveCard;
    use rnic_sim::live::{LivePort, LiveWorld};
    use std::time::Instant;
    // (Listening before the card's socket exists: a script that waits for the socket knows
    // the port is open, as QEMU's guestfwd needs when it starts.)
    let listener = match o.listen {
        Some(at) => Some(std::net::TcpListener::bind(at).map_err(|e| format!("cannot listen on {at}: {e}"))?),
        None => None,
    };
    let port = LivePort::bind(&o.card_sock, &o.peer_sock, o.mac, o.ip).map_err(|e| e.to_string())?;
    let nic = rnic_sim::nic::NicSim::new().map_err(|e| e.to_string())?;
    let (world, bus) = LiveCard::live(LiveWorld { nic, port });
    let mut ipv6 = [0u8; 16];
    ipv6[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
    ipv6[15] = o.ip[3];
    let addr = rnic_spec::qp::PortAddress { mac: o.mac, ipv4: o.ip, ipv6 };
    let ctx = Context::new(crate::device::Device::open(bus).map_err(|e| e.to_string())?, addr).map_err(|e| e.to_string())?;
    let mut side = Side::new(ctx, o.size, o.iters, 500, 0x7b).map_err(|e| e.to_string())?;
    let my_psn = rand::random::<u32>() & 0xFF_FFFF;
    let mine = side.dest(my_psn);
    let step = |cycles: u64| {
        world.borrow_mut().run_until(cycles, |_| false);
    };
    let resolve = |ip: [u8; 4]| -> Result<[u8; 6], String> {
        let start = Instant::now();
        let mut asked = None::<Instant>;
        loop {
            if let Some(mac) = world.borrow().port.neighbour(ip) {
                return Ok(mac);
            }
            if asked.is_none_or(|t| t.elapsed().as_millis() > 500) {
                let now = world.borrow().nic.cycles();
                world.borrow_mut().port.resolve(ip, now);
                asked = Some(Instant::now());
            }
            if start.elapsed() > std::time::Duration::from_secs(10) {
                return Err(format!("no ARP answer for {} in 10 s: is the peer's interface up with that address?", std::net::Ipv4Addr::from(ip)));
            }
            step(500);
        }
    };
    let peer_ip = |d: &Dest| -> Result<[u8; 4], String> {
        let ip: [u8; 4] = d.gid[12..].try_into().expect("4 bytes");
        match d.gid == gid_v4(ip) {
            true => Ok(ip),
            false => Err(format!("the tool's GID {} is not IPv4-mapped: run it with -g set to the IPv4 GID's index", std::net::Ipv6Addr::from(d.gid))),
        }
    };
    let theirs = match (listener, o.connect) {
        (Some(listener), None) => {
            // (The card runs while it waits: nothing blocks for ever.)
            listener.set_nonblocking(true).map_err(|e| e.to_string())?;
            let start = Instant::now();
            let mut stream = loop {
                match listener.accept() {
                    Ok((s, _)) => break s,
                    Err(e) if e.kind() != std::io::ErrorKind::WouldBlock => return Err(format!("accept: {e}")),
                    Err(_) if start.elapsed() > PATIENCE => return Err(format!("no tool connected in {} s", PATIENCE.as_secs())),
                    Err(_) => {
                        step(200);
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                }
            };
            stream.set_nonblocking(false).map_err(|e| e.to_string())?;
            let side = &mut side;
            server::<String>(&mut stream, &mine, &mut || step(200), |theirs| {
                let mac = resolve(peer_ip(theirs)?)?;
                side.connect(theirs, mac, my_psn, o.pmtu, false).map_err(|e| e.to_string())
            })?
        }
        (None, Some(at)) => {
            let theirs = connect_client(at, &mine, &mut || step(200))?;
            let mac = resolve(peer_ip(&theirs)?)?;
            side.connect(&theirs, mac, my_psn, o.pmtu, true).map_err(|e| e.to_string())?;
            theirs
        }
        _ => return Err("give one of --listen ADDR:PORT (the tool connects) or --connect ADDR:PORT (the tool listens)".into()),
    };
    let (start, mut wall) = (world.borrow().nic.cycles(), Instant::now());
    let mut progress = (0, 0);
    while !side.done() {
        if (side.sent, side.received) != progress {
            progress = (side.sent, side.received);
            wall = Instant::now();
        }
        if wall.elapsed() > PATIENCE {
            return Err(format!("{} of {} SENDs and {} receives, none more for {} s: the peer stopped answering", side.sent, o.iters, side.received, PATIENCE.as_secs()));
        }
        step(100);
        side.poll()?;
    }
    let cycles = world.borrow().nic.cycles() - start;
    // (The last ACK, and answers to the peer's resends, leave before the process ends: it
    // stays until the peer has been quiet for half a second, ten seconds at most.)
    let linger = Instant::now();
    let mut quiet = (world.borrow().port.last_rx, Instant::now());
    while linger.elapsed().as_secs() < 10 && quiet.1.elapsed().as_millis() < 500 {
        step(1000);
        let last = world.borrow().port.last_rx;
        if last != quiet.0 {
            quiet = (last, Instant::now());
        }
    }
    let w = world.borrow();
    Ok(LiveReport { local: mine, remote: theirs, cycles, arp: w.port.arp, send_errors: w.port.send_errors, oversize: w.port.oversize, pcap: w.port.pcap() })
}
