//! `rnic`: drive an rnic NIC, simulated or (later) real.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use rnic_spec::desc::SendOp;

#[derive(Parser)]
#[command(name = "rnic", version, about = "Drive an rnic RoCE v2 NIC (simulated in Verilator, or a card over VFIO)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the NIC's RTL in Verilator.
    #[command(subcommand)]
    Sim(SimCommand),
    /// Open a card and print what it is: its register blocks and capabilities.
    Info(CardArgs),
    /// Print a card's counters (receive verdicts per drop reason, frames sent).
    Stats(StatsArgs),
}

#[derive(Args)]
struct CardArgs {
    /// Use a simulated card (the NIC's RTL in Verilator) instead of a VFIO device.
    #[arg(long, conflicts_with = "vfio")]
    sim: bool,
    /// The card at this PCI address, bound to vfio-pci (e.g. 0000:01:00.0).
    #[arg(long, value_name = "PCI_ADDRESS")]
    vfio: Option<String>,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct StatsArgs {
    #[command(flatten)]
    card: CardArgs,
    /// Simulated card only: first replay this capture into its Ethernet port.
    #[arg(long, value_name = "IN")]
    pcap: Option<PathBuf>,
    /// The capture's frames end with their FCS (the card is put in soft-MAC mode).
    #[arg(long)]
    fcs: bool,
}

#[derive(Subcommand)]
enum SimCommand {
    /// Replay a capture into the receive pipeline and print a verdict per frame.
    Rx(RxArgs),
    /// Send random packets through the transmit engine, check each against the reference
    /// model, and optionally capture them.
    Tx(TxArgs),
    /// Two simulated cards: RDMA WRITEs and SENDs through the driver from 1 byte to 1 MiB over
    /// IPv4 and IPv6 with a VLAN tag, every destination byte, ACK and completion checked;
    /// optionally over a link that loses, reorders, duplicates and corrupts frames.
    Demo(DemoArgs),
    /// Benchmarks in simulated clock cycles.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// One simulated card on a live link (a unix datagram socket, as QEMU's -netdev dgram)
    /// playing ibv_rc_pingpong against the tool at the other end (`ibv_rc_pingpong -g 1`).
    Pingpong(PingpongArgs),
    /// One simulated card on a live link playing a perftest tool's peer (`ib_write_bw -x 1 -F`
    /// and friends, perftest 4.5 as Debian 12 ships it), as server or client.
    Perf(PerfArgs),
}

/// A simulated card on a live link, and how it meets the tool's out-of-band exchange.
#[derive(Args)]
struct LinkArgs {
    /// unix:CARD.sock,PEER.sock: the card's datagram socket and the peer's (QEMU's -netdev
    /// dgram local.path and remote.path, swapped); or stream:CARD.sock: a stream socket the
    /// card listens on (QEMU's -netdev stream,server=off,addr.type=unix,addr.path=CARD.sock).
    #[arg(long, value_name = "unix:CARD,PEER|stream:CARD")]
    link: String,
    /// The card's IPv4 address (answered for by ARP).
    #[arg(long, default_value = "192.0.2.2")]
    ip: std::net::Ipv4Addr,
    /// The card's MAC address.
    #[arg(long, default_value = "02:00:00:00:00:02")]
    mac: String,
    /// Wait here for the tool to connect (it runs with this host as its argument).
    #[arg(long, value_name = "ADDR:PORT", conflicts_with = "connect")]
    listen: Option<std::net::SocketAddr>,
    /// Connect to the tool's server (it runs without a host argument).
    #[arg(long, value_name = "ADDR:PORT")]
    connect: Option<std::net::SocketAddr>,
    /// Write every frame that crossed the link, both ways, to this capture.
    #[arg(long, value_name = "OUT")]
    pcap: Option<PathBuf>,
    /// One JSON object.
    #[arg(long)]
    json: bool,
    /// Print every message of the tool's out-of-band exchange to stderr.
    #[arg(long)]
    show_exchange: bool,
}

#[derive(Args)]
struct PingpongArgs {
    #[command(flatten)]
    link: LinkArgs,
    /// Bytes per SEND (the tool's -s).
    #[arg(short = 's', long, default_value_t = 4096)]
    size: u32,
    /// SENDs each way (the tool's -n).
    #[arg(short = 'n', long, default_value_t = 1000)]
    iters: u32,
    /// Path MTU (the tool's -m; rxe on a 1500-byte link uses 1024).
    #[arg(short = 'm', long, default_value_t = 1024)]
    mtu: u32,
}

#[derive(Clone, Copy, ValueEnum)]
enum PerfTest {
    #[value(name = "write_bw")]
    WriteBw,
    #[value(name = "send_bw")]
    SendBw,
    #[value(name = "read_bw")]
    ReadBw,
    #[value(name = "write_lat")]
    WriteLat,
    #[value(name = "atomic_bw")]
    AtomicBw,
}

#[derive(Clone, Copy, ValueEnum)]
enum AtomicName {
    #[value(name = "FETCH_AND_ADD")]
    FetchAndAdd,
    #[value(name = "CMP_AND_SWAP")]
    CmpAndSwap,
}

#[derive(Args)]
struct PerfArgs {
    /// The tool at the other end: write_bw (ib_write_bw -x 1 -F), send_bw, read_bw,
    /// write_lat or atomic_bw.
    #[arg(value_enum)]
    test: PerfTest,
    #[command(flatten)]
    link: LinkArgs,
    /// Bytes per message (the tool's -s; atomics are 8 bytes).
    #[arg(short = 's', long, default_value_t = 65536)]
    size: u32,
    /// Messages (the tool's -n).
    #[arg(short = 'n', long, default_value_t = 1000)]
    iters: u32,
    /// The atomic operation (the tool's -A).
    #[arg(short = 'A', long, value_enum, default_value = "FETCH_AND_ADD")]
    atomic: AtomicName,
    /// Path MTU offered (the smaller of both sides' is used; rxe on a 1500-byte link: 1024).
    #[arg(short = 'm', long, default_value_t = 4096)]
    mtu: u32,
}

#[derive(Args)]
struct DemoArgs {
    /// Write every frame on the link to this capture (pcap, Ethernet, simulated timestamps).
    #[arg(long, value_name = "OUT")]
    pcap: Option<PathBuf>,
    /// Write VCD waveforms of both cards (FILE and FILE.1.vcd).
    #[arg(long, value_name = "FILE.vcd")]
    trace: Option<PathBuf>,
    /// Write one JSON line per host-memory write of either card: card, cycle, address,
    /// length, and what it landed in (a registered region, a completion ring, or outside).
    #[arg(long, value_name = "OUT.jsonl")]
    dma_log: Option<PathBuf>,
    /// One JSON object per operation, then a summary.
    #[arg(long)]
    json: bool,
    /// Fraction of frames the link loses, per direction (0 ... 1, e.g. 0.01).
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    loss: f64,
    /// Fraction of frames that arrive after the next one.
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    reorder: f64,
    /// Fraction of frames that arrive twice.
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    duplicate: f64,
    /// Fraction of frames with one bit flipped (the receiving card's FCS check drops them).
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    corrupt: f64,
    /// Seed of the link's faults (a run repeats exactly).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args)]
struct TxArgs {
    /// Packets to send.
    #[arg(long, default_value_t = 100)]
    packets: usize,
    /// Largest payload per packet (the path MTU at most: 4096).
    #[arg(long, default_value_t = 4096)]
    max_payload: usize,
    /// Seed of the random packets.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Append the Ethernet FCS (soft-MAC mode).
    #[arg(long)]
    fcs: bool,
    /// Write the frames to this capture (pcap, Ethernet; timestamps in simulated time).
    #[arg(long, value_name = "OUT")]
    pcap_out: Option<PathBuf>,
    /// Write a VCD waveform of the transmit engine to this file.
    #[arg(long, value_name = "FILE.vcd")]
    trace: Option<PathBuf>,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Receive pipeline at line rate: frames of 64 … 9000 bytes back to back.
    Rx(BenchRxArgs),
    /// Transmit engine: RDMA WRITE packets of 0 … 4096 payload bytes back to back.
    Tx(BenchTxArgs),
    /// RDMA WRITE goodput through the driver between two cards: 64 B … 1 MiB, PMTU 1024 and
    /// 4096, 1 and 16 QPs.
    Write(BenchWriteArgs),
    /// SEND goodput through the driver between two cards (receive buffers posted before):
    /// 64 B, 4 KiB, 64 KiB at PMTU 4096, 1 and 16 QPs.
    Send(BenchWriteArgs),
    /// RDMA READ goodput through the driver (card 0 reads card 1's memory): 64 B … 1 MiB at
    /// PMTU 4096, 1 and 16 QPs, 8 READs outstanding per QP.
    Read(BenchWriteArgs),
    /// Latency through the driver between two cards, in perftest's columns: WRITE and SEND
    /// ping-pong (half round trip), READ (round trip), 8 B, 64 B and 4 KiB.
    Lat(BenchLatArgs),
}

#[derive(Args)]
struct BenchLatArgs {
    /// Round trips per row.
    #[arg(short = 'n', long, default_value_t = 200)]
    iters: usize,
    /// One JSON object per row.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct BenchWriteArgs {
    /// Bytes to move per row (at least 64 and at most 512 messages are sent).
    #[arg(long, default_value_t = 4 << 20, value_name = "BYTES")]
    bytes: usize,
    /// One JSON object per row.
    #[arg(long)]
    json: bool,
    /// WRITE only: 64 KiB WRITEs over a link that loses this fraction of frames (e.g. 0.01).
    #[arg(long, value_name = "P")]
    loss: Option<f64>,
    /// Also draw goodput and message rate against message size, the wire's limit beside, as
    /// an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

#[derive(Args)]
struct BenchTxArgs {
    /// Packets per size (at least 2).
    #[arg(long, default_value_t = 1000)]
    frames: usize,
    /// One JSON object per size.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct BenchRxArgs {
    /// Frames per size.
    #[arg(long, default_value_t = 1000)]
    frames: usize,
    /// One JSON object per size.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct RxArgs {
    /// Capture to replay (pcap or pcapng, Ethernet link type).
    #[arg(long, value_name = "IN")]
    pcap: PathBuf,
    /// The frames end with their Ethernet FCS (soft-MAC mode: it is checked and stripped).
    /// Without it, frames are taken as a hard MAC delivers them, FCS already stripped.
    #[arg(long)]
    fcs: bool,
    /// One JSON object per frame per line, then a summary object.
    #[arg(long)]
    json: bool,
    /// Write a VCD waveform of the whole receive pipeline to this file.
    #[arg(long, value_name = "FILE.vcd")]
    trace: Option<PathBuf>,
    /// NIC configuration (port addresses, QPs, memory regions; TOML, see spec/src/config.rs):
    /// the capture is also replayed into a whole card so configured, which answers requests.
    #[arg(long, value_name = "NIC.toml")]
    config: Option<PathBuf>,
    /// With --config: write the frames the card sends in response (ACK / NAK) to this capture.
    #[arg(long, value_name = "OUT")]
    pcap_out: Option<PathBuf>,
    /// With --config: write one JSON line per host-memory write the card made (cycle,
    /// address, length, and the region key and QP, or the completion, it was for).
    #[arg(long, value_name = "OUT.jsonl")]
    dma_log: Option<PathBuf>,
}

fn sim_rx(a: RxArgs) -> Result<(), String> {
    if (a.pcap_out.is_some() || a.dma_log.is_some()) && a.config.is_none() {
        return Err("--pcap-out and --dma-log need --config: only a configured card (QPs, memory regions) answers requests".into());
    }
    let report = rnic_driver::sim_rx::run(&a.pcap, a.fcs, a.trace.as_deref()).map_err(|e| e.to_string())?;
    let responses = match &a.config {
        Some(config) => {
            let frames = rnic_driver::sim_rx::read_capture(&a.pcap).map_err(|e| e.to_string())?;
            Some(rnic_driver::sim_rx::respond(&frames, config, a.fcs).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    if a.json {
        let text = report.json_lines();
        match &responses {
            // The card's answers join the summary object (the last line).
            Some(r) => {
                let mut lines: Vec<&str> = text.lines().collect();
                let mut summary: serde_json::Value = serde_json::from_str(lines.pop().expect("summary")).map_err(|e| e.to_string())?;
                summary["summary"]["card"] = r.json();
                for l in lines {
                    println!("{l}");
                }
                println!("{summary}");
            }
            None => print!("{text}"),
        }
    } else {
        print!("{}", report.table());
        if let Some(r) = &responses {
            print!("{}", r.table());
        }
    }
    if let (Some(path), Some(r)) = (&a.pcap_out, &responses) {
        let frames: Vec<(u64, Vec<u8>)> = r.frames.iter().enumerate().map(|(i, f)| (i as u64, f.clone())).collect();
        std::fs::write(path, rnic_sim::pcap::write(&frames)).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let (Some(path), Some(r)) = (&a.dma_log, &responses) {
        std::fs::write(path, r.dma_log()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

fn sim_tx(a: TxArgs) -> Result<(), String> {
    if a.packets == 0 {
        return Err("--packets must be at least 1".into());
    }
    if a.max_payload > rnic_spec::wire::MAX_PAYLOAD {
        return Err(format!("--max-payload {} exceeds the largest path MTU, {}", a.max_payload, rnic_spec::wire::MAX_PAYLOAD));
    }
    let report = rnic_driver::sim_tx::run(a.packets, a.max_payload, a.seed, a.fcs, a.trace.as_deref()).map_err(|e| e.to_string())?;
    if let Some(path) = &a.pcap_out {
        std::fs::write(path, rnic_sim::pcap::write(&report.frames))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    println!("{}", report.summary());
    for (i, at) in &report.mismatches {
        println!("packet {i}: differs from the model at byte {at}");
    }
    if report.mismatches.is_empty() {
        Ok(())
    } else {
        Err("the transmit engine's frames differ from the reference model".into())
    }
}

fn bench_rx(a: BenchRxArgs) -> Result<(), String> {
    if a.frames == 0 {
        return Err("--frames must be at least 1".into());
    }
    let rows = rnic_driver::bench::rx(a.frames);
    print!("{}", if a.json { rnic_driver::bench::rx_json(&rows) } else { rnic_driver::bench::rx_table(&rows) });
    Ok(())
}

/// A fault option's fraction of frames (`name P`, 0 ... 1) as the link model's percent.
fn percent_of_frames(name: &str, p: f64) -> Result<f64, String> {
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("{name} {p}: a fraction of frames is 0 ... 1 (0.01 is one frame in a hundred)"));
    }
    Ok(p * 100.0)
}

/// The link options, checked.
fn link_opts(a: &LinkArgs) -> Result<rnic_driver::live_link::LinkOpts, String> {
    let (card, peer) = match a.link.split_once(':') {
        Some(("unix", paths)) => match paths.split_once(',') {
            Some((card, peer)) => (card, Some(peer.into())),
            None => return Err(format!("--link {}: write unix:CARD.sock,PEER.sock (two paths, comma between)", a.link)),
        },
        Some(("stream", card)) if !card.is_empty() && !card.contains(',') => (card, None),
        _ => return Err(format!("--link {}: write unix:CARD.sock,PEER.sock (datagrams) or stream:CARD.sock (the peer connects)", a.link)),
    };
    let bad_mac = || format!("--mac {}: write six hex bytes, e.g. 02:00:00:00:00:02", a.mac);
    let mac: Vec<u8> = a.mac.split(':').map(|b| (b.len() == 2).then(|| u8::from_str_radix(b, 16).ok()).flatten()).collect::<Option<_>>().ok_or_else(bad_mac)?;
    let mac: [u8; 6] = mac.try_into().map_err(|_| bad_mac())?;
    rnic_driver::exchange::SHOW_MESSAGES.store(a.show_exchange, std::sync::atomic::Ordering::Relaxed);
    Ok(rnic_driver::live_link::LinkOpts { card_sock: card.into(), peer_sock: peer, mac, ip: a.ip.octets(), listen: a.listen, connect: a.connect })
}

fn write_pcap(a: &LinkArgs, pcap: &[u8]) -> Result<(), String> {
    match &a.pcap {
        Some(path) => std::fs::write(path, pcap).map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => Ok(()),
    }
}

fn pingpong(a: PingpongArgs) -> Result<(), String> {
    if a.size == 0 || a.iters == 0 {
        return Err("-s and -n: at least 1".into());
    }
    let opts = rnic_driver::pingpong::LiveOpts {
        link: link_opts(&a.link)?,
        size: a.size,
        iters: a.iters,
        pmtu: a.mtu,
    };
    let r = rnic_driver::pingpong::run_live(&opts)?;
    write_pcap(&a.link, &r.link.pcap)?;
    // (The tool's lines, its wall time replaced by the card's simulated time at 250 MHz.)
    let secs = r.cycles as f64 / (rnic_sim::bench::CLOCK_MHZ * 1e6);
    let bytes = a.size as u64 * a.iters as u64 * 2;
    let gid = |d: &rnic_driver::exchange::Dest| std::net::Ipv6Addr::from(d.gid);
    if a.link.json {
        let j = serde_json::json!({
            "local": {"qpn": r.local.qpn, "psn": r.local.psn, "gid": gid(&r.local).to_string()},
            "remote": {"qpn": r.remote.qpn, "psn": r.remote.psn, "gid": gid(&r.remote).to_string()},
            "bytes": bytes, "iters": a.iters, "cycles": r.cycles, "usec_per_iter": secs * 1e6 / a.iters as f64, "counters": r.counters,
            "arp": {"answered": r.link.arp.answered, "asked": r.link.arp.asked, "learnt": r.link.arp.learnt, "ignored": r.link.arp.ignored},
            "link": {"send_errors": r.link.send_errors, "oversize": r.link.oversize, "cycles_run": r.link.cycles},
        });
        println!("{j}");
    } else {
        for (what, d) in [("local address: ", &r.local), ("remote address:", &r.remote)] {
            println!("  {what} LID 0x{:04x}, QPN 0x{:06x}, PSN 0x{:06x}, GID {}", d.lid, d.qpn, d.psn, gid(d));
        }
        println!("{bytes} bytes in {secs:.2} seconds = {:.2} Mbit/sec", bytes as f64 * 8.0 / secs / 1e6);
        println!("{} iters in {secs:.2} seconds = {:.2} usec/iter", a.iters, secs * 1e6 / a.iters as f64);
        println!("(simulated time: {} cycles at 250 MHz)", r.cycles);
        println!("card counters: {}", r.counters);
    }
    Ok(())
}

fn perf(a: PerfArgs) -> Result<(), String> {
    use rnic_driver::perftest::{AtomicKind, PerfResult, Test};
    if a.size == 0 || a.iters == 0 || a.size > 1 << 23 {
        return Err(format!("-s {} -n {}: -n at least 1, -s 1 ... 8388608 (perftest's range)", a.size, a.iters));
    }
    if rnic_driver::perftest::mtu_code(a.mtu).is_none() {
        return Err(format!("-m {}: a path MTU is 256, 512, 1024, 2048 or 4096", a.mtu));
    }
    let test = match a.test {
        PerfTest::WriteBw => Test::WriteBw,
        PerfTest::SendBw => Test::SendBw,
        PerfTest::ReadBw => Test::ReadBw,
        PerfTest::WriteLat => Test::WriteLat,
        PerfTest::AtomicBw => Test::AtomicBw(match a.atomic {
            AtomicName::FetchAndAdd => AtomicKind::FetchAndAdd,
            AtomicName::CmpAndSwap => AtomicKind::CmpAndSwap,
        }),
    };
    if test == Test::WriteLat && a.iters < 2 {
        return Err("-n 1: a latency test needs two iterations for one round trip".into());
    }
    let opts = rnic_driver::perftest::PerfOpts { link: link_opts(&a.link)?, test, size: a.size, iters: a.iters, pmtu: a.mtu };
    let r = rnic_driver::perftest::run_live(&opts)?;
    write_pcap(&a.link, &r.link.pcap)?;
    if a.link.json {
        let keys = |k: &rnic_driver::perftest::Keys| serde_json::json!({"qpn": k.qpn, "psn": k.psn, "rkey": k.rkey, "vaddr": k.vaddr, "out_reads": k.out_reads, "gid": std::net::Ipv6Addr::from(k.gid).to_string()});
        let result = match r.result {
            PerfResult::Bw { result: b, from_peer } => serde_json::json!({"bytes": b.size, "iterations": b.iters, "bw_peak_mbs": b.peak_mbs, "bw_average_mbs": b.avg_mbs, "msg_rate_mpps": b.msg_rate_mpps, "from_peer": from_peer}),
            PerfResult::Lat(l) => serde_json::json!({"bytes": l.size, "iterations": l.iters, "t_min_us": l.min, "t_max_us": l.max, "t_typical_us": l.typical, "t_avg_us": l.avg, "t_stdev_us": l.stdev, "p99_us": l.p99, "p999_us": l.p999}),
        };
        let j = serde_json::json!({
            "test": test.tool(), "card": if r.card_is_server { "server" } else { "client" },
            "local": keys(&r.local), "remote": keys(&r.remote),
            "peer_version": r.agreed.peer_version, "pmtu": r.agreed.pmtu, "cycle_buffer": r.agreed.cycle_buffer,
            "result": result, "counters": r.counters,
            "arp": {"answered": r.link.arp.answered, "asked": r.link.arp.asked, "learnt": r.link.arp.learnt, "ignored": r.link.arp.ignored},
            "link": {"send_errors": r.link.send_errors, "oversize": r.link.oversize, "cycles_run": r.link.cycles},
        });
        println!("{j}");
    } else {
        print!("{}", rnic_driver::perftest::report_text(test, &r));
        println!(" card counters: {}", r.counters);
    }
    Ok(())
}

fn demo(a: DemoArgs) -> Result<(), String> {
    let trace = a.trace.as_ref().map(|p| p.display().to_string());
    let mut faults = rnic_sim::world::Faults { seed: a.seed, ..Default::default() };
    for (name, p, field) in [
        ("--loss", a.loss, &mut faults.loss),
        ("--reorder", a.reorder, &mut faults.reorder),
        ("--duplicate", a.duplicate, &mut faults.duplicate),
        ("--corrupt", a.corrupt, &mut faults.corrupt),
    ] {
        *field = percent_of_frames(name, p)?;
    }
    let mut d = rnic_driver::demo::run(trace.as_deref(), faults, a.dma_log.is_some())?;
    print!("{}", if a.json { rnic_driver::demo::json(&mut d)? } else { rnic_driver::demo::table(&mut d)? });
    if let Some(path) = &a.dma_log {
        use rnic_driver::sim_rx::DmaTarget;
        let writes = d.dma_writes();
        let log: String = writes.iter().map(|w| format!("{}\n", w.json())).collect();
        std::fs::write(path, log).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let bytes = |card: usize, f: fn(&DmaTarget) -> bool| writes.iter().filter(|w| w.card == card && f(&w.target)).map(|w| w.len as u64).sum::<u64>();
        for card in 0..2 {
            eprintln!(
                "card {card} host writes: {} bytes into regions, {} bytes of completions, {} bytes outside both ({})",
                bytes(card, |t| matches!(t, DmaTarget::Region { .. })),
                bytes(card, |t| matches!(t, DmaTarget::Completion { .. })),
                bytes(card, |t| matches!(t, DmaTarget::Outside)),
                path.display()
            );
        }
        if writes.iter().any(|w| w.target == DmaTarget::Outside) {
            return Err("a card wrote host memory outside its regions and completion rings: a card bug (see the log)".into());
        }
    }
    if let Some(path) = &a.pcap {
        std::fs::write(path, d.world.borrow().pcap()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let failed = d.rows.iter().filter(|r| !r.ok()).count();
    if failed > 0 {
        return Err(format!("{failed} operations failed their checks"));
    }
    Ok(())
}

fn bench_write(a: BenchWriteArgs, op: SendOp) -> Result<(), String> {
    if a.bytes == 0 {
        return Err("--bytes must be at least 1".into());
    }
    if let Some(path) = &a.plot {
        if a.loss.is_some() {
            return Err("--plot draws the sweep of message sizes; --loss runs 64 KiB only: leave one of them out".into());
        }
        // Before the minutes of simulation: a path that cannot be written fails now.
        std::fs::File::create(path).map_err(|e| format!("--plot {}: {e}", path.display()))?;
    }
    let rows = match (op, a.loss) {
        (SendOp::Write, None) => rnic_driver::bench::write(a.bytes)?,
        (SendOp::Write, Some(p)) => rnic_driver::bench::write_lossy(a.bytes, percent_of_frames("--loss", p)?)?,
        (_, Some(_)) => return Err("--loss goes with `rnic sim bench write`".into()),
        (SendOp::Read, None) => rnic_driver::bench::read(a.bytes)?,
        (_, None) => rnic_driver::bench::send(a.bytes)?,
    };
    print!("{}", if a.json { rnic_driver::bench::write_json(&rows) } else { rnic_driver::bench::write_table(&rows) });
    if let Some(path) = &a.plot {
        rnic_driver::bench::write_plot(&rows, path)?;
    }
    Ok(())
}

fn bench_lat(a: BenchLatArgs) -> Result<(), String> {
    if a.iters == 0 {
        return Err("-n must be at least 1".into());
    }
    let rows = rnic_driver::bench::latencies(a.iters)?;
    print!("{}", if a.json { rnic_driver::bench::lat_json(&rows) } else { rnic_driver::bench::lat_table(&rows) });
    Ok(())
}

fn bench_tx(a: BenchTxArgs) -> Result<(), String> {
    if a.frames < 2 {
        return Err("--frames must be at least 2 (the rate is measured between the first and the last frame)".into());
    }
    let rows = rnic_driver::bench::tx(a.frames);
    print!("{}", if a.json { rnic_driver::bench::tx_json(&rows) } else { rnic_driver::bench::tx_table(&rows) });
    Ok(())
}

/// An opened card: simulated, or real through VFIO.
enum Card {
    Sim(Box<rnic_driver::device::Device<rnic_driver::sim_bus::SimCard>>),
    Vfio(rnic_driver::device::Device<rnic_driver::vfio::VfioBus>),
}

impl Card {
    fn info(&mut self) -> Result<rnic_driver::device::Info, String> {
        match self {
            Card::Sim(d) => d.info(),
            Card::Vfio(d) => d.info(),
        }
        .map_err(|e| e.to_string())
    }

    fn stats(&mut self) -> Result<Vec<(&'static str, &'static str, u32)>, String> {
        match self {
            Card::Sim(d) => d.stats(),
            Card::Vfio(d) => d.stats(),
        }
        .map_err(|e| e.to_string())
    }

    fn kind(&self) -> &'static str {
        match self {
            Card::Sim(_) => "simulated",
            Card::Vfio(_) => "VFIO",
        }
    }
}

fn open_card(a: &CardArgs) -> Result<Card, String> {
    use rnic_driver::device::Device;
    match (&a.vfio, a.sim) {
        (Some(address), _) => {
            let bus = rnic_driver::vfio::VfioBus::open(address).map_err(|e| e.to_string())?;
            Ok(Card::Vfio(Device::open(bus).map_err(|e| e.to_string())?))
        }
        (None, true) => {
            let nic = rnic_sim::nic::NicSim::new().map_err(|e| e.to_string())?;
            Ok(Card::Sim(Box::new(Device::open(rnic_driver::sim_bus::SimCard::new(nic)).map_err(|e| e.to_string())?)))
        }
        (None, false) => Err("no card given: pass --vfio PCI_ADDRESS for a card bound to vfio-pci, or --sim for a simulated one".into()),
    }
}

fn info(a: CardArgs) -> Result<(), String> {
    let mut card = open_card(&a)?;
    let info = card.info()?;
    let blocks: Vec<(String, u32, u32, u32)> = info
        .blocks
        .iter()
        .map(|b| (b.known.map_or("unknown".to_string(), |k| k.name.to_string()), b.base, b.kind, b.version))
        .collect();
    if a.json {
        let line = serde_json::json!({
            "datapath_bits": info.datapath_bits,
            "clock_khz": info.clock_khz,
            "max_payload": info.max_payload,
            "qps": info.qps,
            "cqs": info.cqs,
            "mrs": info.mrs,
            "features": info.feature_names(),
            "blocks": blocks.iter().map(|(n, base, kind, v)| serde_json::json!({"name": n, "base": base, "type": kind, "version": v})).collect::<Vec<_>>(),
        });
        println!("{line}");
    } else {
        println!("rnic ({})", card.kind());
        println!("  datapath     {} bits at {} MHz", info.datapath_bits, info.clock_khz as f64 / 1000.0);
        println!("  max payload  {} bytes", info.max_payload);
        println!("  QPs / CQs / MRs  {} / {} / {}", info.qps, info.cqs, info.mrs);
        println!("  features     {}", info.feature_names().join(" "));
        println!("  blocks");
        for (n, base, kind, v) in &blocks {
            println!("    {base:#06x}  {n:<12} type {kind:#010x} v{v}");
        }
    }
    Ok(())
}

fn stats(a: StatsArgs) -> Result<(), String> {
    let mut card = open_card(&a.card)?;
    if let Some(path) = &a.pcap {
        let Card::Sim(card) = &mut card else {
            return Err("--pcap replays frames into a simulated card's port; use it with --sim".into());
        };
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let frames = rnic_sim::pcap::read(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        card.set_soft_fcs(a.fcs).map_err(|e| e.to_string())?;
        for (i, f) in frames.iter().enumerate() {
            if f.is_empty() {
                return Err(format!("{}: frame {i} is empty; remove it from the capture", path.display()));
            }
            card.bus().nic.receive(&rnic_spec::wire::as_on_wire(f, a.fcs));
        }
        // Let the last frame's verdict reach the counters.
        card.bus().nic.idle(64);
    } else if a.fcs {
        return Err("--fcs says how the frames of --pcap end; give --pcap too".into());
    }
    let stats = card.stats()?;
    if a.card.json {
        let mut obj = serde_json::Map::new();
        for (block, name, v) in &stats {
            obj.entry(block.to_string()).or_insert_with(|| serde_json::json!({}))[name] = serde_json::json!(v);
        }
        println!("{}", serde_json::Value::Object(obj));
    } else {
        for (block, name, v) in &stats {
            println!("{:<28} {v:>12}", format!("{block}.{name}"));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => info(a),
        Command::Stats(a) => stats(a),
        Command::Sim(SimCommand::Rx(a)) => sim_rx(a),
        Command::Sim(SimCommand::Tx(a)) => sim_tx(a),
        Command::Sim(SimCommand::Bench(BenchCommand::Rx(a))) => bench_rx(a),
        Command::Sim(SimCommand::Bench(BenchCommand::Tx(a))) => bench_tx(a),
        Command::Sim(SimCommand::Bench(BenchCommand::Write(a))) => bench_write(a, SendOp::Write),
        Command::Sim(SimCommand::Bench(BenchCommand::Send(a))) => bench_write(a, SendOp::Send),
        Command::Sim(SimCommand::Bench(BenchCommand::Read(a))) => bench_write(a, SendOp::Read),
        Command::Sim(SimCommand::Bench(BenchCommand::Lat(a))) => bench_lat(a),
        Command::Sim(SimCommand::Demo(a)) => demo(a),
        Command::Sim(SimCommand::Pingpong(a)) => pingpong(a),
        Command::Sim(SimCommand::Perf(a)) => perf(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rnic: {e}");
            ExitCode::from(2)
        }
    }
}
