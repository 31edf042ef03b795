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

    let out = rnic(&["sim", "rx", "--pcap", &vector("good_fcs.pcap"), "--config", "nic.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("--config is not supported yet"));
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
    assert!(String::from_utf8(out.stderr).unwrap().contains("pass --sim"));
    let out = rnic(&["stats", "--sim", "--fcs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("give --pcap too"));
}

#[test]
fn sim_demo_checks_every_byte_and_captures_valid_roce_frames() {
    let path = std::env::temp_dir().join(format!("rnic-cli-demo-{}.pcap", std::process::id()));
    let out = rnic(&["sim", "demo", "--json", "--pcap", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let (summary, rows) = lines.split_last().unwrap();
    assert_eq!(summary["summary"]["ok"], true);
    let run: Vec<&serde_json::Value> = rows.iter().filter(|r| r["skipped"].is_null()).collect();
    assert_eq!(run.len(), 36, "WRITE and WRITE with immediate, six sizes, three paths");
    assert!(run.iter().all(|r| r["bytes_ok"] == true && r["acked"] == true));
    assert!(run.iter().any(|r| r["size"] == 1 << 20) && run.iter().any(|r| r["size"] == 1));
    assert_eq!(summary["summary"]["counters"]["card1"]["responder.naks_access"], 0);
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
}
