//! RTL transmit engine (hdl/src/roce/tx.rs) in Verilator against the spec's reference model
//! (`TxDescriptor::packet`): random descriptors of every opcode it builds, IPv4/IPv6, with and
//! without VLAN, payloads of 0..=4096 bytes, idle input cycles and consumer backpressure, FCS
//! on and off. Every frame must equal the model's byte for byte, and no frame may stall once
//! started.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_sim::tx::TxSim;
use rnic_spec::wire::eth::Vlan;
use rnic_spec::wire::ib::{Aeth, Reth};
use rnic_spec::wire::opcode::Opcode;
use rnic_spec::wire::tx::{tx_opcodes, IpPair, TxDescriptor};

fn random_descriptor(rng: &mut SmallRng, max_payload: usize) -> TxDescriptor {
    let ops = tx_opcodes();
    let opcode = ops[rng.gen_range(0..ops.len())];
    let payload_len = if Opcode::lookup(opcode).expect("table").payload {
        match rng.gen_range(0..6) {
            0 => [0, 1, 2, 3, 4, 63, 64, 65, 127, 128, 4095, 4096][rng.gen_range(0..12)].min(max_payload),
            1 => rng.gen_range(0..=max_payload),
            _ => rng.gen_range(0..=300.min(max_payload)),
        }
    } else {
        0
    };
    TxDescriptor {
        eth_dst: rng.gen(),
        eth_src: rng.gen(),
        vlan: rng.gen_bool(0.3).then(|| Vlan { pcp: rng.gen_range(0..8), dei: rng.gen(), vid: rng.gen_range(0..4096) }),
        ip: if rng.gen() {
            IpPair::V6 { src: rng.gen(), dst: rng.gen() }
        } else {
            IpPair::V4 { src: rng.gen(), dst: rng.gen() }
        },
        dscp: rng.gen_range(0..64),
        ecn: rng.gen_range(0..4),
        ttl: rng.gen(),
        flow_label: rng.gen_range(0..1 << 20),
        udp_src_port: rng.gen(),
        opcode,
        se: rng.gen(),
        pkey: rng.gen(),
        dest_qp: rng.gen_range(0..1 << 24),
        ack_req: rng.gen(),
        psn: rng.gen_range(0..1 << 24),
        reth: Reth { va: rng.gen(), rkey: rng.gen(), dma_len: rng.gen() },
        imm: rng.gen(),
        aeth: Aeth { syndrome: rng.gen(), msn: rng.gen_range(0..1 << 24) },
        payload_len: payload_len as u16,
    }
}

fn run(seed: u64, fcs: bool, packets: usize, max_payload: usize, gaps: u32, backpressure: u32) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut sim = TxSim::new(fcs).unwrap();
    sim.set_gaps(gaps, backpressure, seed);
    let mut expected = Vec::new();
    for _ in 0..packets {
        let d = random_descriptor(&mut rng, max_payload);
        let payload: Vec<u8> = (0..d.payload_len).map(|_| rng.gen()).collect();
        let pkt = d.packet(&payload).expect("engine opcode");
        expected.push((d, if fcs { pkt.frame_with_fcs() } else { pkt.frame() }));
        sim.queue(d, &payload);
    }
    sim.run_until(packets, 400 * packets as u64 + 10_000);
    let got = sim.frames();
    assert_eq!(got.len(), packets, "frames out (pending descriptors/payload beats: {:?})", sim.pending());
    for (i, ((d, want), (_, frame))) in expected.iter().zip(got).enumerate() {
        if frame != want {
            let at = frame.iter().zip(want).position(|(a, b)| a != b).unwrap_or(frame.len().min(want.len()));
            panic!(
                "frame {i}: opcode {:#04x}, payload {} B, {:?}, vlan {}: {} B vs model {} B, first difference at byte {at}\n rtl   {:02x?}\n model {:02x?}",
                d.opcode,
                d.payload_len,
                matches!(d.ip, IpPair::V6 { .. }).then_some("IPv6").unwrap_or("IPv4"),
                d.vlan.is_some(),
                frame.len(),
                want.len(),
                &frame[at.saturating_sub(4)..(at + 12).min(frame.len())],
                &want[at.saturating_sub(4)..(at + 12).min(want.len())],
            );
        }
    }
    assert_eq!(sim.underruns(), 0, "a frame stalled between its first and last beat");
    assert_eq!(sim.frame_counter(), packets as u64, "the engine's frame counter");
}

#[test]
fn tx_small_packets_back_to_back() {
    run(1, true, 1500, 200, 0, 0);
}

#[test]
fn tx_matches_model_with_gaps_and_backpressure() {
    run(2, false, 600, 4096, 30, 30);
    run(3, true, 600, 4096, 10, 90);
}
