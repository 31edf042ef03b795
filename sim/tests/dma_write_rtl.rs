//! RTL DMA write engine (hdl/src/dma/write.rs) in Verilator against host memory behind an AXI4
//! slave model: random addresses (every offset in a beat, across 4 KiB pages), lengths of
//! 1..=8192 bytes, idle input cycles, slave backpressure and PCIe-like write latency. Memory
//! must hold exactly the commanded bytes — nothing outside them written — every burst must stay
//! inside 4 KiB, and each command must report done once, in order.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_sim::host::{AxiWriteSlave, HostMemory, HostTiming};
use rnic_sim::Model;
use std::collections::VecDeque;

/// Returns (cycles, beats written).
fn run(seed: u64, commands: usize, max_len: usize, gaps: u32, backpressure: u32, fixed: Option<(usize, u64)>) -> (u64, u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut m = Model::new("rnic_dma_write").unwrap();
    let p = |m: &Model, n: &str| m.port(n).unwrap();
    let (cv, cr, ca, cl) = (p(&m, "cmd_valid"), p(&m, "cmd_ready"), p(&m, "cmd_addr"), p(&m, "cmd_len"));
    let (iv, ir, id) = (p(&m, "in_valid"), p(&m, "in_ready"), p(&m, "in_data"));
    let (done, done_error) = (p(&m, "done"), p(&m, "done_error"));
    let timing = HostTiming { backpressure, ..HostTiming::default() };
    let mut slave = AxiWriteSlave::new(&m, "", timing, seed).unwrap();
    let mut mem = HostMemory::new(0xEE);
    let mut expected = HostMemory::new(0xEE);

    // Commands inside a 64 KiB window so they overlap and cross pages.
    let mut cmds = VecDeque::new();
    let mut beats = VecDeque::new();
    for _ in 0..commands {
        let mut len = if rng.gen_bool(0.3) { rng.gen_range(1..=70) } else { rng.gen_range(1..=max_len) };
        let mut addr = 0x1_0000_0000u64 + rng.gen_range(0..65536u64);
        if let Some((l, offset)) = fixed {
            len = l;
            addr = 0x1_0000_0000u64 + (cmds.len() as u64 * l as u64) % 65536 + offset;
        }
        let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        expected.write(addr, &data);
        for chunk in data.chunks(64) {
            let mut b = [0u8; 64];
            b[..chunk.len()].copy_from_slice(chunk);
            // Bytes past the length must be ignored: fill them with garbage.
            for x in b.iter_mut().skip(chunk.len()) {
                *x = rng.gen();
            }
            beats.push_back(b);
        }
        cmds.push_back((addr, len));
    }
    let mut dones = 0;
    let roll = |rng: &mut SmallRng, pct: u32| rng.gen_range(0..100) < pct;
    let limit = 400 * commands as u64 + 20_000;
    while (dones < commands || !slave.idle()) && m.cycles < limit {
        match cmds.front() {
            Some(&(addr, len)) if !roll(&mut rng, gaps) => {
                m.set(cv, 1);
                m.set(ca, addr);
                m.set(cl, len as u64);
            }
            _ => m.set(cv, 0),
        }
        match beats.front() {
            Some(b) if !roll(&mut rng, gaps) => {
                m.set_bytes(id, b);
                m.set(iv, 1);
            }
            _ => m.set(iv, 0),
        }
        slave.drive(&mut m);
        m.settle();
        if m.get(cv) == 1 && m.get(cr) == 1 {
            cmds.pop_front();
        }
        if m.get(iv) == 1 && m.get(ir) == 1 {
            beats.pop_front();
        }
        if m.get(done) == 1 {
            assert_eq!(m.get(done_error), 0, "the slave answered OKAY");
            dones += 1;
        }
        slave.sample(&m, &mut mem);
        m.tick();
    }
    assert_eq!(dones, commands, "done pulses (commands left {}, beats left {})", cmds.len(), beats.len());
    assert!(slave.violations.is_empty(), "{:?}", &slave.violations[..slave.violations.len().min(5)]);
    // Every byte of the window and a page either side: written exactly as commanded.
    let base = 0x1_0000_0000u64 - 4096;
    let got = mem.read(base, 65536 + 3 * 4096);
    let want = expected.read(base, 65536 + 3 * 4096);
    if let Some(i) = got.iter().zip(&want).position(|(a, b)| a != b) {
        panic!("memory differs at {:#x}: {:#04x}, expected {:#04x}", base + i as u64, got[i], want[i]);
    }
    (m.cycles, slave.beats_seen)
}

#[test]
fn dma_write_places_every_byte() {
    run(1, 400, 8192, 0, 0, None);
}

/// Back-to-back 4 KiB writes stream at one beat per cycle, aligned or not (an unaligned 4 KiB
/// write takes 65 beats in two bursts).
#[test]
fn dma_write_streams_one_beat_per_cycle() {
    for offset in [0, 8] {
        let (cycles, beats) = run(4, 200, 4096, 0, 0, Some((4096, offset)));
        let rate = beats as f64 / cycles as f64;
        eprintln!("offset {offset}: {beats} beats in {cycles} cycles ({rate:.4} beats/cycle)");
        assert!(rate > 0.97, "offset {offset}: {beats} beats in {cycles} cycles");
    }
}

#[test]
fn dma_write_with_gaps_and_backpressure() {
    run(2, 400, 4096, 30, 30, None);
    run(3, 200, 8192, 10, 80, None);
}
