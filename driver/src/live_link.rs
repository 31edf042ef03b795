//! One simulated card on a live link, as the tools' peers need it: the card's world on a unix
//! datagram socket (QEMU's `-netdev dgram`) or stream socket (`-netdev stream`), its verbs
//! context, the peer's MAC by ARP, the TCP
//! side of the out-of-band exchange (listening or connecting) with the card running while it
//! waits, and the linger after the last completion so the card's last ACK leaves. Shared by
//! `rnic sim pingpong` ([`crate::pingpong`]) and `rnic sim perf` ([`crate::perftest`]).

use crate::exchange::{gid_v4, PATIENCE};
use crate::sim_bus::LiveCard;
use crate::verbs::Context;
use rnic_sim::live::{ArpCounts, LivePort, LiveWorld};
use std::cell::RefCell;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Where the card sits on the link and how it meets the tool.
#[derive(Debug, Clone)]
pub struct LinkOpts {
    /// The card's socket, and for a datagram link the peer's (QEMU's `-netdev dgram`
    /// `local.path` / `remote.path`); without it the card listens on a stream socket for the
    /// peer to connect (QEMU's `-netdev stream,server=off`).
    pub card_sock: std::path::PathBuf,
    pub peer_sock: Option<std::path::PathBuf>,
    pub mac: [u8; 6],
    pub ip: [u8; 4],
    /// Wait for the tool to connect here (the tool runs with a host argument), or connect to
    /// the tool's server (the tool runs without one).
    pub listen: Option<SocketAddr>,
    pub connect: Option<SocketAddr>,
}

/// What the link saw, for the report.
pub struct LinkReport {
    /// Cycles the card's model ran in all (idle time skipped).
    pub cycles: u64,
    pub arp: ArpCounts,
    /// Frames the link's socket refused (no peer there), and datagrams too long to take.
    pub send_errors: u64,
    pub oversize: u64,
    /// Every frame that crossed the link, both ways.
    pub pcap: Vec<u8>,
}

/// The card's world on the link, and the TCP listener when the card is the server.
pub struct LiveLink {
    pub world: Rc<RefCell<LiveWorld>>,
    listener: Option<TcpListener>,
    connect: Option<SocketAddr>,
}

impl LiveLink {
    /// Open the link and the card on it, and its verbs context. The TCP port (with `listen`)
    /// is open before the card's socket exists: a script that waits for the socket knows the
    /// port is open, as QEMU's guestfwd needs when it starts.
    pub fn open(o: &LinkOpts) -> Result<(LiveLink, Context<LiveCard>), String> {
        let listener = match (o.listen, o.connect) {
            (Some(at), None) => Some(TcpListener::bind(at).map_err(|e| format!("cannot listen on {at}: {e}"))?),
            (None, Some(_)) => None,
            _ => return Err("give one of --listen ADDR:PORT (the tool connects) or --connect ADDR:PORT (the tool listens)".into()),
        };
        let port = match &o.peer_sock {
            Some(peer) => LivePort::bind(&o.card_sock, peer, o.mac, o.ip),
            None => LivePort::listen(&o.card_sock, o.mac, o.ip),
        }
        .map_err(|e| e.to_string())?;
        let nic = rnic_sim::nic::NicSim::new().map_err(|e| e.to_string())?;
        let (world, bus) = LiveCard::live(LiveWorld { nic, port });
        let mut ipv6 = [0u8; 16];
        ipv6[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        ipv6[15] = o.ip[3];
        let addr = rnic_spec::qp::PortAddress { mac: o.mac, ipv4: o.ip, ipv6 };
        let ctx = Context::new(crate::device::Device::open(bus).map_err(|e| e.to_string())?, addr).map_err(|e| e.to_string())?;
        Ok((LiveLink { world, listener, connect: o.connect }, ctx))
    }

    /// Run the card (and the link) for `cycles`.
    pub fn step(&self, cycles: u64) {
        self.world.borrow_mut().run_until(cycles, |_| false);
    }

    /// While the card waits with nothing outstanding (for a message of the exchange, for
    /// the peer's requests): run it while frames move, else skip the idle time — the model
    /// is not evaluated, and the process sleeps 0.2 ms before it looks at the socket again.
    /// True if the card ran (frames moved: the peer is at work).
    pub fn idle(&self) -> bool {
        let ran = self.world.borrow_mut().run_busy(1000) > 0;
        if !ran {
            std::thread::sleep(Duration::from_micros(200));
        }
        ran
    }

    pub fn cycles(&self) -> u64 {
        self.world.borrow().nic.cycles()
    }

    /// The card is the server (the tool connects).
    pub fn is_server(&self) -> bool {
        self.listener.is_some()
    }

    /// The TCP connection to the tool: accepted (the card running while it waits, for
    /// [`PATIENCE`]) or connected. A connecting card tries again while the connection is
    /// refused or closed at once, through `first`, the card's first exchange step: a
    /// forwarded port (QEMU's hostfwd) accepts and closes while the guest's server is not up.
    pub fn stream<T>(&self, mut first: impl FnMut(&mut TcpStream) -> Result<T, crate::exchange::ExchangeError>) -> Result<(TcpStream, T), String> {
        use std::io::ErrorKind;
        let start = Instant::now();
        if let Some(listener) = &self.listener {
            listener.set_nonblocking(true).map_err(|e| e.to_string())?;
            let mut stream = loop {
                match listener.accept() {
                    Ok((s, _)) => break s,
                    Err(e) if e.kind() != ErrorKind::WouldBlock => return Err(format!("accept: {e}")),
                    Err(_) if start.elapsed() > PATIENCE => return Err(format!("no tool connected in {} s", PATIENCE.as_secs())),
                    Err(_) => drop(self.idle()),
                }
            };
            stream.set_nonblocking(false).map_err(|e| e.to_string())?;
            let t = first(&mut stream).map_err(|e| e.to_string())?;
            return Ok((stream, t));
        }
        let at = self.connect.expect("a client link has an address");
        crate::exchange::connect_retrying(at, &mut || self.idle(), first)
    }

    /// The peer's IPv4 address from its GID, which must be IPv4-mapped.
    pub fn peer_ip(gid: &[u8; 16]) -> Result<[u8; 4], String> {
        let ip: [u8; 4] = gid[12..].try_into().expect("4 bytes");
        match *gid == gid_v4(ip) {
            true => Ok(ip),
            false => Err(format!("the tool's GID {} is not IPv4-mapped: run it with -g / -x set to the IPv4 GID's index", std::net::Ipv6Addr::from(*gid))),
        }
    }

    /// The MAC of `ip` by ARP (asked every half second, for 10 s), the card running meanwhile.
    pub fn resolve(&self, ip: [u8; 4]) -> Result<[u8; 6], String> {
        let start = Instant::now();
        let mut asked = None::<Instant>;
        loop {
            if let Some(mac) = self.world.borrow().port.neighbour(ip) {
                return Ok(mac);
            }
            if asked.is_none_or(|t| t.elapsed().as_millis() > 500) {
                let now = self.cycles();
                self.world.borrow_mut().port.resolve(ip, now);
                asked = Some(Instant::now());
            }
            if start.elapsed() > Duration::from_secs(10) {
                return Err(format!("no ARP answer for {} in 10 s: is the peer's interface up with that address?", std::net::Ipv4Addr::from(ip)));
            }
            self.idle();
        }
    }

    /// Run the card until `done` (checked every 100 cycles) or until `progress` has not
    /// changed for [`PATIENCE`] of wall time; `stalled` says what was missing.
    pub fn run_while<P: PartialEq + Copy>(&self, mut poll: impl FnMut() -> Result<(bool, P), String>, stalled: impl Fn(P) -> String) -> Result<(), String> {
        let (mut last, mut wall) = (None, Instant::now());
        loop {
            let (done, progress) = poll()?;
            if done {
                return Ok(());
            }
            if last != Some(progress) {
                last = Some(progress);
                wall = Instant::now();
            }
            if wall.elapsed() > PATIENCE {
                return Err(format!("{}, none more for {} s: the peer stopped answering", stalled(progress), PATIENCE.as_secs()));
            }
            self.step(100);
        }
    }

    /// Stay until the peer has been quiet for half a second (ten seconds at most): the last
    /// ACK, and answers to the peer's resends, leave before the process ends. Then what the
    /// link saw.
    pub fn finish(&self) -> LinkReport {
        let linger = Instant::now();
        let mut quiet = (self.world.borrow().port.last_rx, Instant::now());
        while linger.elapsed().as_secs() < 10 && quiet.1.elapsed().as_millis() < 500 {
            self.idle();
            let last = self.world.borrow().port.last_rx;
            if last != quiet.0 {
                quiet = (last, Instant::now());
            }
        }
        let w = self.world.borrow();
        LinkReport { cycles: w.nic.cycles(), arp: w.port.arp, send_errors: w.port.send_errors, oversize: w.port.oversize, pcap: w.port.pcap() }
    }
}
