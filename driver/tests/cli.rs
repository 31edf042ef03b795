//! The `rnic` binary as a user runs it.

use std::process::Command;

fn rnic(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rnic")).args(args).output().expect("run rnic")
}

fn vector(name: &str) -> String {
    format!("{}/../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn sim_rx_json_reports_every_frame() {
    let out = rnic(&["sim", "rx", "--pcap", &vector("bad_opcode.pcap"), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 12 + 1);
    for (i, l) in lines[..12].iter().enumerate() {
        let keys: Vec<&str> = l.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["index", "verdict", "reason", "opcode", "dest_qp", "psn"]);
        assert_eq!(l["index"], i);
        assert_eq!(l["verdict"], "dropped");
        assert_eq!(l["reason"], "unknown_opcode");
    }
    let s = &lines[12]["summary"];
    assert_eq!(s["accepted"], 0);
    assert_eq!(s["dropped"], 12);
    assert_eq!(s["counters"]["dropped"]["unknown_opcode"], 12);
}

#[test]
fn sim_rx_table_ends_with_the_summary_line() {
    let out = rnic(&["sim", "rx", "--pcap", &vector("good_ipv6_vlan.pcap")]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().last(), Some("66 accepted, 0 dropped"));
    assert!(text.contains("RC RDMA WRITE Only with Immediate (0x0b)"), "{text}");
}

#[test]
fn sim_rx_fcs_flag_checks_the_fcs() {
    let out = rnic(&["sim", "rx", "--pcap", &vector("bad_fcs.pcap"), "--fcs"]);
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout).unwrap().ends_with("0 accepted, 4 dropped\n"));
}

#[test]
fn errors_name_the_problem_and_the_fix() {
    let out = rnic(&["sim", "rx", "--pcap", "/nonexistent/x.pcap"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cannot read /nonexistent/x.pcap") && err.contains("--pcap"), "{err}");

    let out = rnic(&["sim", "rx", "--pcap", &format!("{}/Cargo.toml", env!("CARGO_MANIFEST_DIR"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("not a pcap or pcapng file"));

    // A capture with an empty frame.
    let empty = std::env::temp_dir().join(format!("rnic-cli-empty-{}.pcap", std::process::id()));
    std::fs::write(&empty, rnic_sim::pcap::write(&[(0, vec![0u8; 60]), (1000, vec![])])).unwrap();
    let out = rnic(&["sim", "rx", "--pcap", empty.to_str().unwrap(), "--fcs"]);
    std::fs::remove_file(&empty).ok();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("frame 1 is empty"));

    // A pcapng file whose section header says length 0: an error naming the offset, at once.
    let zero = std::env::temp_dir().join(format!("rnic-cli-zero-{}.pcapng", std::process::id()));
    let shb = [&[0x0Au8, 0x0D, 0x0D, 0x0A][..], &[0; 4], &0x1A2B_3C4Du32.to_le_bytes(), &[1, 0, 0, 0], &[0xFF; 8], &28u32.to_le_bytes()].concat();
    std::fs::write(&zero, shb).unwrap();
    let out = rnic(&["sim", "rx", "--pcap", zero.to_str().unwrap()]);
    std::fs::remove_file(&zero).ok();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("malformed section header at byte 0: total length 0"), "{err}");

    // Real cards: the address is checked, a missing device is named.
    let out = rnic(&["info", "--vfio", "01:00.0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("write domain:bus:device.function, e.g. 0000:01:00.0"));
    let out = rnic(&["info", "--vfio", "0000:ff:1f.7"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("0000:ff:1f.7"));
    let out = rnic(&["stats"]);
    assert!(String::from_utf8(out.stderr).unwrap().contains("pass --vfio PCI_ADDRESS"));

    let out = rnic(&["sim", "rx", "--pcap", &vector("good_fcs.pcap"), "--config", "/nonexistent/nic.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("/nonexistent/nic.toml: cannot read it"));

    // A benchmark's plot: refused before minutes of simulation, with the reason.
    let out = rnic(&["sim", "bench", "write", "--plot", "/nonexistent/dir/goodput.svg"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--plot /nonexistent/dir/goodput.svg") && out.stdout.is_empty(), "{err}");
    let out = rnic(&["sim", "bench", "write", "--loss", "0.01", "--plot", "goodput.svg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("--loss runs 64 KiB only"));
}

#[test]
fn sim_rx_writes_a_waveform() {
    let path = std::env::temp_dir().join(format!("rnic-cli-trace-{}.vcd", std::process::id()));
    let out = rnic(&["sim", "rx", "--pcap", &vector("good_min_padded.pcap"), "--trace", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let vcd = std::fs::read_to_string(&path).expect("waveform written");
    std::fs::remove_file(&path).ok();
    assert!(vcd.contains("$enddefinitions"), "not a VCD file");
    assert!(vcd.contains(" rec_valid "), "record signals missing from the waveform");

    let out = rnic(&["sim", "rx", "--pcap", &vector("good_min_padded.pcap"), "--trace", "/nonexistent/dir/x.vcd"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("cannot open waveform file"));
}

#[test]
fn sim_tx_captures_frames_that_the_rx_pipeline_accepts() {
    let path = std::env::temp_dir().join(format!("rnic-cli-tx-{}.pcap", std::process::id()));
    let out = rnic(&["sim", "tx", "--packets", "50", "--seed", "3", "--pcap-out", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().contains("50 packets"));
    // What the transmit engine sent, the receive pipeline accepts, every frame.
    let out = rnic(&["sim", "rx", "--pcap", path.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&path).ok();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.contains("\"verdict\":\"accepted\"")).count(), 50, "{text}");

    let out = rnic(&["sim", "tx", "--max-payload", "5000"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("exceeds the largest path MTU"));
    let out = rnic(&["sim", "tx", "--packets", "1", "--pcap-out", "/nonexistent/dir/x.pcap"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("cannot write /nonexistent/dir/x.pcap"));
}

#[test]
fn info_and_stats_read_the_simulated_card_over_bar0() {
    let out = rnic(&["info", "--sim", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info["datapath_bits"], 512);
    assert_eq!(info["blocks"][0]["name"], "id");
    assert!(info["features"].as_array().unwrap().iter().any(|f| f == "tx-engine"));

    let out = rnic(&["stats", "--sim", "--json", "--pcap", &vector("bad_opcode.pcap")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let frames = rnic_sim::pcap::read(&std::fs::read(vector("bad_opcode.pcap")).unwrap()).unwrap().len();
    assert_eq!(stats["rx_counters"]["unknown_opcode"], frames);
    assert_eq!(stats["rx_counters"]["accepted"], 0);

    let out = rnic(&["info"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("or --sim for a simulated one"));
    let out = rnic(&["stats", "--sim", "--fcs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("give --pcap too"));
}

#[test]
fn sim_demo_checks_every_byte_and_captures_valid_roce_frames() {
    let path = std::env::temp_dir().join(format!("rnic-cli-demo-{}.pcap", std::process::id()));
    let log_path = std::env::temp_dir().join(format!("rnic-cli-demo-{}.jsonl", std::process::id()));
    let out = rnic(&["sim", "demo", "--json", "--pcap", path.to_str().unwrap(), "--dma-log", log_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let (summary, rows) = lines.split_last().unwrap();
    assert_eq!(summary["summary"]["ok"], true);
    assert_eq!(rows.len(), 96, "WRITE, WRITE with immediate, SEND, SEND with immediate, READ: six sizes; FETCH & ADD, COMPARE & SWAP; three paths");
    assert!(rows.iter().all(|r| r["bytes_ok"] == true && r["acked"] == true && r["completed"] == true));
    assert!(rows.iter().any(|r| r["size"] == 1 << 20) && rows.iter().any(|r| r["size"] == 1));
    for op in ["WRITE", "WRITE with immediate", "SEND", "SEND with immediate", "READ"] {
        assert_eq!(rows.iter().filter(|r| r["operation"] == op).count(), 18, "{op}");
    }
    for op in ["FETCH & ADD", "COMPARE & SWAP"] {
        assert_eq!(rows.iter().filter(|r| r["operation"] == op && r["size"] == 8).count(), 3, "{op}");
    }
    assert_eq!(summary["summary"]["counters"]["card1"]["responder.atomics"], 6);
    assert_eq!(summary["summary"]["counters"]["card1"]["responder.naks_access"], 0);
    assert_eq!(summary["summary"]["counters"]["card1"]["responder.receives"], 54, "a receive per SEND and WRITE with immediate");
    // Every frame on the link: valid RoCE v2 by the reference receiver (fields, lengths, ICRC),
    // both directions, the two kinds of path.
    let frames = rnic_sim::pcap::read(&std::fs::read(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(frames.len() as u64, summary["summary"]["frames"].as_u64().unwrap());
    let mut v6 = 0;
    for f in &frames {
        let r = rnic_spec::wire::rx::classify(f, rnic_spec::wire::rx::RxConfig { fcs: false });
        assert_eq!(r.verdict, Ok(()));
        v6 += matches!(r.packet.unwrap().ip, rnic_spec::wire::packet::IpHeader::V6(_)) as usize;
    }
    assert!(v6 > 0 && v6 < frames.len());
    // The host write log: card 1 wrote every message's bytes (an atomic's new word) into its
    // region and its completion ring (receive CQEs), card 0 the READs' bytes and the atomics'
    // original values into its region and its completions; nothing elsewhere.
    let log: Vec<serde_json::Value> = std::fs::read_to_string(&log_path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    std::fs::remove_file(&log_path).ok();
    let bytes = |card: u64, target: &str| log.iter().filter(|w| w["card"] == card && w["target"] == target).map(|w| w["len"].as_u64().unwrap()).sum::<u64>();
    let payload = |ops: &[&str]| rows.iter().filter(|r| ops.iter().any(|op| r["operation"] == *op)).map(|r| r["size"].as_u64().unwrap()).sum::<u64>();
    let atomics = ["FETCH & ADD", "COMPARE & SWAP"];
    let to_card1 = ["WRITE", "WRITE with immediate", "SEND", "SEND with immediate", atomics[0], atomics[1]];
    assert_eq!(bytes(1, "region"), payload(&to_card1), "every message's bytes, once");
    assert_eq!(bytes(0, "region"), payload(&["READ", atomics[0], atomics[1]]), "every READ's bytes and original value, once");
    assert_eq!(bytes(1, "completion"), 54 * 32, "a 32-byte CQE per receive");
    assert_eq!(bytes(0, "completion"), 96 * 32, "a CQE per send");
    assert_eq!(bytes(0, "outside") + bytes(1, "outside"), 0);
    assert!(log.windows(2).all(|p| p[0]["card"] != p[1]["card"] || p[0]["cycle"].as_u64() <= p[1]["cycle"].as_u64()), "in order per card");
}

#[test]
fn sim_demo_over_a_faulty_link_recovers_every_operation() {
    let args = ["sim", "demo", "--json", "--loss", "0.01", "--reorder", "0.01", "--duplicate", "0.005", "--corrupt", "0.001", "--seed", "1"];
    let out = rnic(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let (summary, rows) = lines.split_last().unwrap();
    let s = &summary["summary"];
    assert_eq!(s["ok"], true);
    assert_eq!(rows.len(), 96);
    assert!(rows.iter().all(|r| r["bytes_ok"] == true && r["completed"] == true));
    let link = &s["link"];
    assert!(link["lost"].as_u64().unwrap() > 0 && link["reordered"].as_u64().unwrap() > 0, "{link}");
    let card0 = &s["counters"]["card0"];
    assert!(card0["completer.rewinds"].as_u64().unwrap() > 0 && card0["tx_counters.resent"].as_u64().unwrap() > 0, "{card0}");
    assert_eq!(card0["completer.retries_exceeded"], 0, "no QP gave up");
    // Each message placed exactly once, however often it was sent.
    assert_eq!(s["counters"]["card1"]["responder.receives"], 54);

    let out = rnic(&["sim", "demo", "--loss", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("--loss 2: a fraction of frames is 0 ... 1"));
}

#[test]
fn sim_rx_config_answers_requests_like_the_reference_responder() {
    use rnic_spec::qp::{PortAddress, QpContext};
    use rnic_spec::responder::RspState;
    use rnic_spec::wire::ib::Reth;
    use rnic_spec::wire::tx::{IpPair, TxDescriptor};
    let dir = std::env::temp_dir().join(format!("rnic-cli-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = r#"
[port]
mac = "02:00:00:00:00:02"
ipv4 = "192.0.2.2"

[[qp]]
qpn = 0x11
remote_qpn = 0x2a
remote_mac = "02:00:00:00:00:01"
remote_ip = "192.0.2.1"
pmtu = 1024
expected_psn = 100

[[mr]]
key = 0x1234
iova = 0x10000000
length = 8192
access = ["remote_write", "local_write"]

[[recv]]
qpn = 0x11
addr = 0x10001000
length = 256
lkey = 0x1234
"#;
    std::fs::write(dir.join("nic.toml"), config).unwrap();
    let cfg = rnic_spec::config::NicConfig::parse(config).unwrap();
    let port = cfg.port().unwrap();
    let (_, ctx): (u32, QpContext) = cfg.qps().unwrap()[0];
    let mut mrs = vec![None; 256];
    for m in cfg.regions().unwrap() {
        mrs[rnic_spec::mr::slot(m.key, 256)] = Some(m);
    }
    // Requests from 192.0.2.1: a 3-packet WRITE, a PSN gap, a duplicate, a SEND with
    // immediate into the [[recv]] buffer, a bad rkey (the QP goes to error) and a WRITE the QP
    // in error drops.
    let peer = PortAddress { mac: [2, 0, 0, 0, 0, 1], ipv4: [192, 0, 2, 1], ipv6: [0; 16] };
    let req = |opcode: u8, psn: u32, reth: Reth, len: usize, ack_req: bool| {
        let d = TxDescriptor {
            eth_dst: port.mac,
            eth_src: peer.mac,
            vlan: None,
            ip: IpPair::V4 { src: peer.ipv4, dst: port.ipv4 },
            dscp: 0,
            ecn: 2,
            ttl: 64,
            flow_label: 0,
            udp_src_port: 0xC123,
            opcode,
            se: false,
            pkey: 0xFFFF,
            dest_qp: 0x11,
            ack_req,
            psn,
            reth,
            imm: 0xC0FFEE,
            aeth: Default::default(),
            atomic: Default::default(),
            payload_len: len as u16,
        };
        d.packet(&vec![0xA5; len]).unwrap()
    };
    let r = |va, rkey, dma_len| Reth { va, rkey, dma_len };
    let packets = [
        req(0x06, 100, r(0x1000_0000, 0x1234, 2500), 1024, false),
        req(0x07, 101, Reth::default(), 1024, false),
        req(0x08, 102, Reth::default(), 452, true),
        req(0x0A, 110, r(0x1000_0000, 0x1234, 8), 8, true),
        req(0x0A, 101, r(0x1000_0000, 0x1234, 8), 8, true),
        req(0x05, 103, Reth::default(), 100, true),
        req(0x0A, 104, r(0x1000_0000, 0x9934, 8), 8, true),
        req(0x0A, 105, r(0x1000_0000, 0x1234, 8), 8, true),
    ];
    let frames: Vec<(u64, Vec<u8>)> = packets.iter().enumerate().map(|(i, p)| (i as u64, p.frame())).collect();
    std::fs::write(dir.join("in.pcap"), rnic_sim::pcap::write(&frames)).unwrap();
    let mut state = RspState::new(ctx.rq_psn);
    let rq = [rnic_spec::desc::RecvWqe { wr_id: 0, addr: 0x1000_1000, length: 256, lkey: 0x1234 }];
    let effects: Vec<_> = packets.iter().map(|p| state.receive(Some(&ctx), &mrs, &rq, p)).collect();
    let want: Vec<Vec<u8>> =
        effects.iter().filter_map(|e| e.response).map(|resp| resp.descriptor(&port, &ctx).packet(&[]).unwrap().frame()).collect();
    assert_eq!(want.len(), 5, "an ACK, a NAK sequence, an ACK of the duplicate, an ACK of the SEND, a NAK remote access");
    assert_eq!(effects[7].outcome, rnic_spec::responder::Outcome::BadQp, "the QP in error drops the last WRITE");
    let c = effects.iter().find_map(|e| e.completion).expect("the SEND completes its receive");
    assert_eq!((c.wqe_index, c.byte_len, c.imm), (0, 100, Some(0xC0FFEE)));

    let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let out = rnic(&["sim", "rx", "--pcap", &p("in.pcap"), "--config", &p("nic.toml"), "--pcap-out", &p("out.pcap")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("responder.placed") && text.contains("5 frames sent in response"), "{text}");
    assert!(text.contains("receive completion: QP 0x11 buffer 0 of its [[recv]] entries, 100 bytes, Success, immediate 0x00c0ffee"), "{text}");
    assert!(text.contains("1 of 1 receive buffers used"), "{text}");
    let got = rnic_sim::pcap::read(&std::fs::read(dir.join("out.pcap")).unwrap()).unwrap();
    assert_eq!(got, want, "the card's answers are the reference responder's");

    // The host write log: exactly the model's placed bytes, in the region of 0x1234 for QP
    // 0x11, and one CQE for the SEND's receive completion; nothing anywhere else.
    let out = rnic(&["sim", "rx", "--pcap", &p("in.pcap"), "--config", &p("nic.toml"), "--dma-log", &p("dma.jsonl")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log: Vec<serde_json::Value> =
        std::fs::read_to_string(dir.join("dma.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut placed = std::collections::BTreeSet::new();
    let mut logged = std::collections::BTreeSet::new();
    for e in &effects {
        if let rnic_spec::responder::Outcome::Placed { addr, len } = e.outcome {
            placed.extend(addr..addr + len as u64);
        }
    }
    let mut cqes = 0;
    for w in &log {
        let (addr, len) = (w["addr"].as_u64().unwrap(), w["len"].as_u64().unwrap());
        assert_eq!(w["qpn"], 0x11, "{w}");
        match w["target"].as_str().unwrap() {
            "region" => {
                assert_eq!(w["key"], 0x1234, "{w}");
                logged.extend(addr..addr + len);
            }
            "completion" => cqes += len,
            t => panic!("a write {t}: {w}"),
        }
    }
    assert_eq!(logged, placed, "the log holds exactly the placed bytes");
    assert_eq!(cqes, rnic_spec::desc::CQE_LEN as u64, "one receive completion");
    assert!(String::from_utf8(out.stdout).unwrap().contains(&format!("host writes: {} bytes into regions, 32 bytes of completions, 0 bytes outside both", placed.len())));

    // Configuration errors name the entry, the field and the fix.
    std::fs::write(dir.join("bad.toml"), config.replace("pmtu = 1024", "pmtu = 1500")).unwrap();
    let out = rnic(&["sim", "rx", "--pcap", &p("in.pcap"), "--config", &p("bad.toml")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("qp[0].pmtu: 1500 is not 256, 512, 1024, 2048 or 4096"));
    let out = rnic(&["sim", "rx", "--pcap", &p("in.pcap"), "--pcap-out", &p("x.pcap")]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sim_pingpong_plays_both_roles_of_ibv_rc_pingpong_across_two_processes() {
    // Two `rnic sim pingpong` processes, each a card on its own unix datagram socket, the
    // exchange over loopback TCP exactly as the tool makes it: one listens as the tool's
    // server would, the other connects as its client.
    let dir = std::env::temp_dir().join(format!("rnic-cli-pp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.sock"), dir.join("b.sock"));
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let at = format!("127.0.0.1:{port}");
    let exe = env!("CARGO_BIN_EXE_rnic");
    let link = |x: &std::path::Path, y: &std::path::Path| format!("unix:{},{}", x.display(), y.display());
    let pcap = dir.join("server.pcap");
    let server = std::process::Command::new(exe)
        .args(["sim", "pingpong", "--link", &link(&a, &b), "--ip", "192.0.2.2", "--mac", "02:00:00:00:00:02", "--listen", &at, "-s", "1000", "-n", "7"])
        .args(["--pcap", pcap.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let client = std::process::Command::new(exe)
        .args(["sim", "pingpong", "--link", &link(&b, &a), "--ip", "192.0.2.1", "--mac", "02:00:00:00:00:01", "--connect", &at, "-s", "1000", "-n", "7", "--json"])
        .output()
        .unwrap();
    let server = server.wait_with_output().unwrap();
    assert!(client.status.success(), "client: {}", String::from_utf8_lossy(&client.stderr));
    assert!(server.status.success(), "server: {}", String::from_utf8_lossy(&server.stderr));
    let out = String::from_utf8(server.stdout).unwrap();
    assert!(out.contains("14000 bytes in ") && out.contains("7 iters in "), "{out}");
    assert!(out.contains("remote address: LID 0x0000, QPN 0x") && out.contains("GID ::ffff:192.0.2.1"), "{out}");
    let j: serde_json::Value = serde_json::from_slice(&client.stdout).unwrap();
    assert_eq!((j["iters"].as_u64(), j["remote"]["gid"].as_str()), (Some(7), Some("::ffff:192.0.2.2")));
    assert!(j["arp"]["answered"].as_u64() >= Some(1) && j["arp"]["learnt"].as_u64() >= Some(1), "{j}");
    // The server's capture: 7 SEND ONLYs each way (1000 bytes at PMTU 1024), and their ACKs.
    let frames = rnic_sim::pcap::read(&std::fs::read(&pcap).unwrap()).unwrap();
    let sends = frames.iter().filter(|f| f.len() > 1000).count();
    assert_eq!(sends, 14, "{} frames", frames.len());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sim_perf_plays_both_roles_of_each_perftest_tool_across_two_processes() {
    // Two `rnic sim perf` processes per tool, one the tool's server and one its client, the
    // exchange over loopback TCP in the tools' format. Sizes and counts reach the paths the
    // tools have: messages over half the cycle buffer (always the same remote address) and
    // over the path MTU, strides that do not divide the cycle buffer (300 and 1500 bytes: the
    // addresses start again before the end), more SENDs than the server's first receives, a latency count past
    // the byte's wrap at 256, atomics past the 64 words they cycle through (each word's next
    // original value checked against its last by the card).
    let dir = std::env::temp_dir().join(format!("rnic-cli-perf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = env!("CARGO_BIN_EXE_rnic");
    let link = |x: &std::path::Path, y: &std::path::Path| format!("unix:{},{}", x.display(), y.display());
    let cases: [(&[&str], u64, &str); 6] = [
        (&["write_bw", "-s", "5000", "-n", "30"], 30, "responder.placed=60"),
        (&["send_bw", "-s", "1500", "-n", "600"], 600, "responder.receives=600"),
        (&["read_bw", "-s", "300", "-n", "30"], 30, "responder.read_responses=30"),
        (&["write_lat", "-s", "64", "-n", "300"], 300, "responder.placed=300"),
        (&["atomic_bw", "-A", "FETCH_AND_ADD", "-n", "150"], 150, "responder.atomics=150"),
        (&["atomic_bw", "-A", "CMP_AND_SWAP", "-n", "150"], 150, "responder.atomics=150"),
    ];
    for (k, (args, iters, server_did)) in cases.into_iter().enumerate() {
        let (a, b) = (dir.join(format!("a{k}.sock")), dir.join(format!("b{k}.sock")));
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let at = format!("127.0.0.1:{port}");
        let server = std::process::Command::new(exe)
            .args(["sim", "perf"])
            .args(args)
            .args(["--link", &link(&a, &b), "--ip", "192.0.2.2", "--mac", "02:00:00:00:00:02", "--listen", &at, "--json"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let client = std::process::Command::new(exe)
            .args(["sim", "perf"])
            .args(args)
            .args(["--link", &link(&b, &a), "--ip", "192.0.2.1", "--mac", "02:00:00:00:00:01", "--connect", &at, "--show-exchange"])
            .output()
            .unwrap();
        let server = server.wait_with_output().unwrap();
        let (c_out, c_err) = (String::from_utf8_lossy(&client.stdout), String::from_utf8_lossy(&client.stderr));
        assert!(client.status.success() && server.status.success(), "{args:?}: client {c_out} {c_err} server {}", String::from_utf8_lossy(&server.stderr));
        // The client prints the tool's lines; the exchange it showed is the tools' (version
        // first, the keys' text).
        let title = if args[0] == "write_lat" { "t_typical[usec]" } else { "BW average[MB/sec]" };
        assert!(c_out.contains(title) && c_out.contains(" remote address: LID 0000 QPN 0x"), "{args:?}: {c_out}");
        assert!(c_err.starts_with("exchange: card → tool 16 bytes \"6.06\""), "{c_err}");
        assert!(c_err.contains("exchange: tool → card 108 bytes \"0000:"), "{c_err}");
        let j: serde_json::Value = serde_json::from_slice(&server.stdout).unwrap();
        assert_eq!(j["result"]["iterations"].as_u64(), Some(iters), "{j}");
        assert_eq!((j["card"].as_str(), j["pmtu"].as_u64(), j["remote"]["gid"].as_str()), (Some("server"), Some(4096), Some("::ffff:192.0.2.1")), "{j}");
        // A bandwidth server reports the client's figures, received in the report exchange.
        let from_peer = matches!(args[0], "write_bw" | "read_bw" | "atomic_bw");
        assert_eq!(j["result"]["from_peer"].as_bool().unwrap_or(false), from_peer, "{j}");
        assert!(j["counters"].as_str().unwrap().split(' ').any(|c| c == server_did), "{args:?}: {j}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
