//! RTL DMA read engine (hdl/src/dma/read.rs) in Verilator against host memory behind an AXI4
//! read slave model with PCIe-like latency: random addresses (every offset, across pages) and
//! lengths of 1..=8192 bytes, idle cycles, consumer and slave backpressure. Every command's
//! bytes must come back in order, byte 0 first, with `out_last` on its last beat.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_sim::host::{AxiReadSlave, HostMemory, HostTiming};
use rnic_sim::Model;
use std::collections::VecDeque;

/// Returns (cycles, output beats).
fn run(seed: u64, commands: usize, gaps: u32, backpressure: u32, fixed: Option<(usize, u64)>) -> (u64, u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut m = Model::new("rnic_dma_read").unwrap();
    let p = |m: &Model, n: &str| m.port(n).unwrap();
    let (cv, cr, ca, cl) = (p(&m, "cmd_valid"), p(&m, "cmd_ready"), p(&m, "cmd_addr"), p(&m, "cmd_len"));
    let (ov, or, od, ol, oe) = (p(&m, "out_valid"), p(&m, "out_ready"), p(&m, "out_data"), p(&m, "out_last"), p(&m, "out_error"));
    let timing = HostTiming { backpressure, ..HostTiming::default() };
    let mut slave = AxiReadSlave::new(&m, "", timing, seed).unwrap();
    let mut mem = HostMemory::new(0);
    let image: Vec<u8> = (0..70_000).map(|_| rng.gen()).collect();
    let base = 0x2_0000_0000u64;
    mem.write(base, &image);

    let mut cmds = VecDeque::new();
    let mut expected = VecDeque::new();
    for i in 0..commands {
        let (len, off) = match fixed {
            Some((l, o)) => (l, (i as u64 * l as u64) % 65536 + o),
            None if rng.gen_bool(0.3) => (rng.gen_range(1..=70), rng.gen_range(0..65536)),
            None => (rng.gen_range(1..=4200), rng.gen_range(0..65536)),
        };
        cmds.push_back((base + off, len));
        expected.push_back(image[off as usize..off as usize + len].to_vec());
    }
    let roll = |rng: &mut SmallRng, pct: u32| rng.gen_range(0..100) < pct;
    let mut partial = Vec::new();
    let mut out_beats = 0;
    let mut received = 0;
    let limit = 1000 * commands as u64 + 20_000;
    while received < commands && m.cycles < limit {
        match cmds.front() {
            Some(&(addr, len)) if !roll(&mut rng, gaps) => {
                m.set(cv, 1);
                m.set(ca, addr);
                m.set(cl, len as u64);
            }
            _ => m.set(cv, 0),
        }
        let ready = !roll(&mut rng, gaps);
        m.set(or, ready as u64);
        slave.drive(&mut m, &mem);
        m.settle();
        if m.get(cv) == 1 && m.get(cr) == 1 {
            cmds.pop_front();
        }
        if m.get(ov) == 1 && ready {
            out_beats += 1;
            partial.extend_from_slice(&m.get_bytes(od));
            if m.get(ol) == 1 {
                assert_eq!(m.get(oe), 0, "the slave answered OKAY");
                let want = expected.pop_front().expect("a command was read");
                assert_eq!(partial.len(), want.len().div_ceil(64) * 64, "command {received}: beats");
                assert_eq!(&partial[..want.len()], &want[..], "command {received}: data");
                partial.clear();
                received += 1;
            }
        }
        slave.sample(&m);
        m.tick();
    }
    assert_eq!(received, commands, "commands completed");
    assert!(slave.violations.is_empty(), "{:?}", slave.violations);
    assert!(slave.idle(), "the engine took every beat it asked for");
    (m.cycles, out_beats)
}

#[test]
fn dma_read_returns_every_byte() {
    run(1, 400, 0, 0, None);
}

#[test]
fn dma_read_with_gaps_and_backpressure() {
    run(2, 300, 30, 30, None);
    run(3, 200, 10, 80, None);
}

/// Back-to-back 4 KiB reads stream at about one beat per cycle once the first data is back.
#[test]
fn dma_read_streams_one_beat_per_cycle() {
    for offset in [0, 8] {
        let (cycles, beats) = run(4, 200, 0, 0, Some((4096, offset)));
        let rate = beats as f64 / cycles as f64;
        eprintln!("offset {offset}: {beats} beats in {cycles} cycles ({rate:.4} beats/cycle)");
        assert!(rate > 0.95, "offset {offset}: {beats} beats in {cycles} cycles");
    }
}
