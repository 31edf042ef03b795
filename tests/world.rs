//! Two simulated cards on a 100 Gb/s link: what one card's transmit engine sends, the other's
//! receive pipeline delivers, byte for byte, at the link's rate; every frame on the wire is the
//! reference model's.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_driver::device::Device;
use rnic_driver::sim_bus::SimCard;
use rnic_sim::tx::random_descriptor;
use rnic_sim::world::{LinkConfig, World, WIRE_OVERHEAD};
use rnic_spec::wire::rx::{classify, RxConfig};
use rnic_spec::wire::tx::TxDescriptor;

#[test]
fn two_cards_exchange_frames_both_ways() {
    let mut rng = SmallRng::seed_from_u64(0x2c0de);
    let mut world = World::new(LinkConfig::default()).unwrap();
    let n = 150;
    let mut sent: [Vec<(TxDescriptor, Vec<u8>)>; 2] = Default::default();
    for (card, list) in sent.iter_mut().enumerate() {
        for _ in 0..n {
            let d = random_descriptor(&mut rng, 4096);
            let payload: Vec<u8> = (0..d.payload_len).map(|_| rng.gen()).collect();
            world.nics[card].send(d, &payload);
            list.push((d, payload));
        }
    }
    let done = world.run_until(200_000, |w| w.nics.iter().all(|c| c.delivered_count() == n) && w.link_idle());
    assert!(done, "delivered {} and {}", world.nics[0].delivered().len(), world.nics[1].delivered().len());

    for (card, list) in sent.iter().enumerate() {
        let got = world.nics[1 - card].delivered();
        for (i, ((d, payload), (rec, data))) in list.iter().zip(&got).enumerate() {
            assert_eq!((rec.opcode, rec.dest_qp, rec.psn), (d.opcode, d.dest_qp, d.psn), "card {card} packet {i}");
            assert_eq!(data, payload, "card {card} packet {i} payload");
        }
    }
    // The capture: every frame the reference model's, and accepted by the reference receiver.
    let capture = world.capture();
    assert_eq!(capture.len(), 2 * n);
    let mut next = [0usize; 2];
    for (_, from, frame) in capture {
        let (d, payload) = &sent[*from][next[*from]];
        next[*from] += 1;
        assert_eq!(frame, &d.packet(payload).unwrap().frame(), "frame from card {from}");
        assert_eq!(classify(frame, RxConfig { fcs: false }).verdict, Ok(()));
    }
    assert!(rnic_sim::pcap::read(&world.pcap()).unwrap().len() == 2 * n);
    // And the cards count the same over BAR0.
    for card in world.nics {
        let mut dev = Device::open(SimCard::new(card)).unwrap();
        assert_eq!(dev.read("rx_counters", "accepted").unwrap(), n as u32);
        assert_eq!(dev.read("tx_counters", "frames").unwrap(), n as u32);
    }
}

#[test]
fn link_carries_full_size_frames_at_line_rate() {
    let mut world = World::new(LinkConfig::default()).unwrap();
    let packets = 64;
    let payload = vec![0x5A; 4096];
    for psn in 0..packets {
        // WRITE Middle: BTH only, as most packets of a large WRITE.
        let d = rnic_sim::bench::bench_descriptor(0x07, psn, 4096);
        world.nics[0].send(d, &payload);
    }
    let mut arrivals = Vec::new();
    world.run_until(100_000, |w| {
        let got = w.nics[1].delivered_count();
        if got > arrivals.len() {
            arrivals.push(w.cycles());
        }
        got == packets as usize
    });
    assert_eq!(arrivals.len(), packets as usize);
    let frame_len = 14 + 20 + 8 + 12 + 4096 + 4 + 4;
    let cycles = (arrivals[arrivals.len() - 1] - arrivals[0]) as f64;
    let per_frame = cycles / (packets - 1) as f64;
    let expected = world.wire_cycles(frame_len);
    let gbps = 4096.0 * 8.0 / (per_frame * 4.0);
    let limit = 100.0 * 4096.0 / (frame_len + WIRE_OVERHEAD) as f64;
    eprintln!("{per_frame:.2} cycles per frame (wire: {expected:.2}), payload {gbps:.2} Gb/s of {limit:.2} Gb/s possible");
    assert!((per_frame - expected).abs() < 0.005 * expected, "{per_frame} cycles per frame, the wire needs {expected}");
}

#[test]
fn network_faults_reach_the_receiver_as_a_network_would_deliver_them() {
    use rnic_sim::world::Faults;
    let faults = Faults { seed: 7, loss: 4.0, corrupt: 4.0, duplicate: 4.0, reorder: 4.0, ce_mark: 25.0 };
    let mut world = World::new(LinkConfig { faults, ..LinkConfig::default() }).unwrap();
    let mut rng = SmallRng::seed_from_u64(0xfa17);
    let n = 300;
    let mut sent = Vec::new();
    for psn in 0..n {
        let mut d = random_descriptor(&mut rng, 1024);
        d.psn = psn; // unique, to find each delivered frame's original
        let payload: Vec<u8> = (0..d.payload_len).map(|_| rng.gen()).collect();
        world.nics[0].send(d, &payload);
        sent.push((d, payload));
    }
    world.run_until(400_000, |w| w.nics[0].tx_pending() == (0, 0) && w.link_idle() && w.cycles() > 10_000);
    let f = world.faults;
    assert!(f.lost > 0 && f.corrupted > 0 && f.duplicated > 0 && f.reordered > 0 && f.ce_marked > 0, "{f:?}");

    let got = world.nics[1].delivered();
    let mut psns = Vec::new();
    let mut newly_marked = 0;
    for (rec, data) in &got {
        let (d, payload) = &sent[rec.psn as usize];
        assert_eq!((rec.opcode, data), (d.opcode, payload), "psn {}", rec.psn);
        if rec.ecn == 3 && d.ecn != 3 {
            assert_ne!(d.ecn, 0, "a switch marks only ECN-capable frames");
            newly_marked += 1;
        }
        psns.push(rec.psn);
    }
    assert!(newly_marked > 0, "CE-marked frames stay valid (the ICRC does not cover ECN)");
    assert!(psns.windows(2).any(|w| w[1] < w[0]), "reordered frames arrive late");
    let mut dev = Device::open(SimCard::new(std::mem::replace(&mut world.nics[1], rnic_sim::nic::NicSim::new().unwrap()))).unwrap();
    let accepted = dev.read("rx_counters", "accepted").unwrap() as u64;
    let bad_fcs = dev.read("rx_counters", "bad_fcs").unwrap() as u64;
    assert_eq!(accepted, got.len() as u64);
    // Every frame that arrived was counted once: lost ones never did, duplicates twice.
    assert_eq!(accepted + bad_fcs, n as u64 - f.lost + f.duplicated, "{f:?}");
    assert!(bad_fcs >= f.corrupted, "every corrupted frame fails its FCS");
}
