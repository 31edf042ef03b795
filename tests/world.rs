//! Two simulated cards on a 100 Gb/s link: what one card's transmit engine sends, the other's
//! receive pipeline delivers, byte for byte, at the link's rate; every frame on the wire is the
//! reference model's.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_driver::device::Device;
use rnic_sim::tx::random_descriptor;
use rnic_sim::world::{LinkConfig, World, WIRE_OVERHEAD};
use rnic_spec::wire::rx::{classify, RxConfig};
use rnic_spec::wire::tx::{IpPair, TxDescriptor};

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
        let mut dev = Device::open(card).unwrap();
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
        let d = TxDescriptor {
            eth_dst: [2, 0, 0, 0, 0, 2],
            eth_src: [2, 0, 0, 0, 0, 1],
            vlan: None,
            ip: IpPair::V4 { src: [192, 0, 2, 1], dst: [192, 0, 2, 2] },
            dscp: 0,
            ecn: 0,
            ttl: 64,
            flow_label: 0,
            udp_src_port: 0xC000,
            opcode: 0x07, // WRITE Middle: BTH only, as most packets of a large WRITE
            se: false,
            pkey: 0xFFFF,
            dest_qp: 0x12,
            ack_req: false,
            psn,
            reth: Default::default(),
            imm: 0,
            aeth: Default::default(),
            payload_len: 4096,
        };
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
