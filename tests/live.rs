//! The card on a live link: its port a unix datagram socket in QEMU's `-netdev dgram` format
//! (one frame per datagram, no FCS, no padding) or a stream socket in `-netdev stream`'s (each
//! frame after its 4-byte big-endian length), the test playing the guest at the other end. ARP for the card's address is answered and the peer's MAC learnt; a RoCE v2 WRITE
//! from the "guest" is placed in host memory and acknowledged back over the socket; every
//! frame both ways is in the capture. Only a socket in a temporary directory is used.

use rnic_driver::device::Device;
use rnic_driver::exchange::Dest;
use rnic_driver::pingpong::Side;
use rnic_driver::sim_bus::LiveCard;
use rnic_driver::sim_pair::{connect, port, raw_request, PathKind};
use rnic_driver::verbs::{Context, QpCaps};
use rnic_sim::live::{arp_frame, LivePort, LiveWorld};
use rnic_sim::nic::NicSim;
use rnic_spec::mr::access;
use rnic_spec::responder::{aeth, OP_ACK, OP_WRITE_ONLY};
use rnic_spec::wire::ib::{Ext, Reth};
use rnic_spec::wire::rx::{classify, RxConfig};
use std::io::{Read, Write};
use std::os::unix::net::{UnixDatagram, UnixStream};
use std::time::Duration;

#[test]
fn a_guest_on_a_datagram_socket_gets_arp_answers_and_its_write_acknowledged() {
    let dir = std::env::temp_dir().join(format!("rnic-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (card_sock, guest_sock) = (dir.join("card.sock"), dir.join("guest.sock"));
    let _ = std::fs::remove_file(&guest_sock);
    let guest = UnixDatagram::bind(&guest_sock).unwrap();
    guest.set_read_timeout(Some(Duration::from_millis(1))).unwrap();
    // The card is port 1 of the two-card world's addresses, the guest port 0.
    let (me, peer) = (port(1), port(0));
    let live = LiveWorld { nic: NicSim::new().unwrap(), port: LivePort::bind(&card_sock, &guest_sock, me.mac, me.ipv4).unwrap() };
    let (world, bus) = LiveCard::live(live);
    let mut card = Context::new(Device::open(bus).unwrap(), me).unwrap();
    // Whatever arrives at the guest while the card runs.
    let mut got = Vec::new();
    let run = |cycles: u64, got: &mut Vec<Vec<u8>>| {
        let mut buf = [0u8; 9000];
        for _ in 0..cycles / 500 {
            world.borrow_mut().run_until(500, |_| false);
            while let Ok(n) = guest.recv(&mut buf) {
                got.push(buf[..n].to_vec());
            }
        }
    };

    // ARP: the guest asks for the card's MAC; the card's side answers and learns the guest's.
    guest.send_to(&arp_frame(1, peer.mac, peer.ipv4, [0xFF; 6], [0; 6], me.ipv4), &card_sock).unwrap();
    run(1000, &mut got);
    assert_eq!(got, [arp_frame(2, me.mac, me.ipv4, peer.mac, peer.mac, peer.ipv4)], "one ARP reply, to the guest");
    assert_eq!(world.borrow().port.neighbour(peer.ipv4), Some(peer.mac));
    // An ARP for someone else is ignored; asking for the guest's MAC broadcasts a request.
    guest.send_to(&arp_frame(1, peer.mac, peer.ipv4, [0xFF; 6], [0; 6], [192, 0, 2, 99]), &card_sock).unwrap();
    let now = world.borrow().nic.cycles();
    world.borrow_mut().port.resolve(peer.ipv4, now);
    got.clear();
    run(1000, &mut got);
    assert_eq!(got, [arp_frame(1, me.mac, me.ipv4, [0xFF; 6], [0; 6], peer.ipv4)]);
    let arp = world.borrow().port.arp;
    // (The ARP from the known guest refreshed its entry: learnt twice.)
    assert_eq!((arp.answered, arp.asked, arp.learnt, arp.ignored), (1, 1, 2, 1));

    // A QP connected to the guest's QPN 0x42 and a region it may write.
    let pd = card.alloc_pd().unwrap();
    let buf = card.alloc_buf(4096, 4096).unwrap();
    let mr = card.reg_mr(pd, buf.iova, 4096, access::REMOTE_WRITE | access::LOCAL_WRITE).unwrap();
    let cq = card.create_cq(16).unwrap();
    let mut qp = card.create_qp(pd, &cq, &cq, QpCaps { sq_entries: 16, rq_entries: 16 }).unwrap();
    connect(&mut card, &mut qp, 0, PathKind { v6: false, vlan: None, pmtu: 1024 }, 0x42, 100, 200).unwrap();

    // The guest's WRITE ONLY of 100 bytes, as a datagram without FCS or padding.
    let payload: Vec<u8> = (0..100u8).collect();
    let d = raw_request(qp.context(), qp.qpn, OP_WRITE_ONLY, 100, Reth { va: buf.iova + 64, rkey: mr.key(), dma_len: 100 }, 100, true);
    let frame = d.packet(&payload).unwrap().frame();
    guest.send_to(&frame, &card_sock).unwrap();
    got.clear();
    run(20_000, &mut got);
    assert_eq!(card.read_buf(buf.iova + 64, 100).unwrap(), payload, "the WRITE's bytes in host memory");
    assert_eq!(got.len(), 1, "one ACK back");
    let ack = classify(&got[0], RxConfig { fcs: false }).packet.expect("a RoCE v2 frame");
    assert_eq!((ack.bth.opcode, ack.bth.psn, ack.bth.dest_qp), (OP_ACK, 100, 0x42));
    assert!(ack.ext.iter().any(|e| matches!(e, Ext::Aeth(a) if a.syndrome == aeth::ACK && a.msn == 1)), "{:?}", ack.ext);

    // Both directions are in the capture, as sent (the WRITE unpadded, the ACK without FCS).
    let w = world.borrow();
    let cap = w.port.capture();
    assert_eq!(cap.iter().filter(|c| !c.1).count(), 3, "two ARP requests and the WRITE from the guest");
    assert!(cap.iter().any(|c| !c.1 && c.2 == frame) && cap.iter().any(|c| c.1 && c.2 == got[0]));
    assert_eq!(rnic_sim::pcap::read(&w.port.pcap()).unwrap().len(), cap.len());
    drop(w);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn two_cards_on_live_links_play_ibv_rc_pingpong() {
    // Two cards, each on its own socket, the other's its peer: ARP resolves each side's MAC,
    // the exchange's messages connect the QPs, and 20 SENDs of 4096 bytes go each way in
    // turns, the client first. Run in one thread: each side's driver steps its own card.
    let dir = std::env::temp_dir().join(format!("rnic-live-pp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let socks = [dir.join("a.sock"), dir.join("b.sock")];
    let mut worlds = Vec::new();
    let mut sides = Vec::new();
    for i in 0..2 {
        let me = port(i as u8);
        let live = LiveWorld { nic: NicSim::new().unwrap(), port: LivePort::bind(&socks[i], &socks[1 - i], me.mac, me.ipv4).unwrap() };
        let (world, bus) = LiveCard::live(live);
        let ctx = Context::new(Device::open(bus).unwrap(), me).unwrap();
        sides.push(Side::new(ctx, 4096, 20, 8, [0xC1, 0x5E][i]).unwrap());
        worlds.push(world);
    }
    // Each asks for the other's MAC; the answers come as both run.
    for (i, w) in worlds.iter().enumerate() {
        let now = w.borrow().nic.cycles();
        w.borrow_mut().port.resolve(port(1 - i as u8).ipv4, now);
    }
    for _ in 0..4 {
        for w in &worlds {
            w.borrow_mut().run_until(200, |_| false);
        }
    }
    let macs: Vec<[u8; 6]> = (0..2).map(|i| worlds[i].borrow().port.neighbour(port(1 - i as u8).ipv4).expect("the peer's MAC by ARP")).collect();
    assert_eq!(macs, [port(1).mac, port(0).mac]);
    // The exchange's messages (their bytes are `exchange`'s tests): side 0 the client.
    let dests = [sides[0].dest(0x1234), sides[1].dest(0xabcdef)];
    let (dest_bytes, psns) = ([dests[1].wire(), dests[0].wire()], [0x1234, 0xabcdef]);
    for i in (0..2).rev() {
        let theirs = Dest::parse(&dest_bytes[i]).unwrap();
        sides[i].connect(&theirs, macs[i], psns[i], 1024, i == 0).unwrap();
    }
    let mut rounds = 0;
    while !(sides[0].done() && sides[1].done()) && rounds < 20_000 {
        for (s, w) in sides.iter_mut().zip(&worlds) {
            // (Completions are host memory: polling them runs no card cycles; these do.)
            w.borrow_mut().run_until(100, |_| false);
            s.poll().unwrap();
        }
        rounds += 1;
    }
    for (i, s) in sides.iter_mut().enumerate() {
        assert_eq!((s.sent, s.received), (20, 20), "side {i} after {rounds} rounds");
        // The client's bytes went there and back: both buffers hold them.
        let iova = s.buf.iova;
        assert_eq!(s.ctx.read_buf(iova, 4096).unwrap(), vec![0xC1; 4096], "side {i}");
    }
    // Every frame each card sent is RoCE v2 (or the ARP the harness sent for it).
    for w in &worlds {
        for (_, from_card, f) in w.borrow().port.capture().iter().filter(|c| c.1) {
            assert!(*from_card);
            let arp = u16::from_be_bytes([f[12], f[13]]) == 0x0806;
            assert!(arp || classify(f, RxConfig { fcs: false }).packet.is_some(), "{f:02x?}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_guest_on_a_stream_socket_is_framed_by_length_and_may_connect_again() {
    let dir = std::env::temp_dir().join(format!("rnic-live-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let card_sock = dir.join("card.sock");
    let (me, peer) = (port(1), port(0));
    let mut world = LiveWorld { nic: NicSim::new().unwrap(), port: LivePort::listen(&card_sock, me.mac, me.ipv4).unwrap() };
    let framed = |f: &[u8]| [&(f.len() as u32).to_be_bytes()[..], f].concat();
    let ask = |tpa: [u8; 4]| arp_frame(1, peer.mac, peer.ipv4, [0xFF; 6], [0; 6], tpa);
    let reply = framed(&arp_frame(2, me.mac, me.ipv4, peer.mac, peer.mac, peer.ipv4));
    // Whatever the card sent, read until `n` bytes came.
    let read = |guest: &mut UnixStream, world: &mut LiveWorld, n: usize| {
        let (mut got, mut buf) = (Vec::new(), [0u8; 4096]);
        for _ in 0..200 {
            world.run_until(200, |_| false);
            if let Ok(k) = guest.read(&mut buf) {
                got.extend_from_slice(&buf[..k]);
            }
            if got.len() >= n {
                break;
            }
        }
        got
    };
    let mut guest = UnixStream::connect(&card_sock).unwrap();
    guest.set_read_timeout(Some(Duration::from_millis(1))).unwrap();
    // Two requests in one write, a third split in the middle of its length: three replies,
    // each after its length; an ARP for another address is ignored.
    let three = [framed(&ask(me.ipv4)), framed(&ask(me.ipv4)), framed(&ask([192, 0, 2, 99])), framed(&ask(me.ipv4))].concat();
    let cut = three.len() - 44;
    guest.write_all(&three[..cut]).unwrap();
    world.run_until(2000, |_| false);
    guest.write_all(&three[cut..]).unwrap();
    assert_eq!(read(&mut guest, &mut world, 3 * reply.len()), [&reply[..], &reply, &reply].concat());
    assert_eq!((world.port.arp.answered, world.port.arp.ignored), (3, 1));
    // A length past any frame: the stream's framing is lost, so the card drops the connection
    // (counted); a guest that connects again is answered (QEMU 7.2's stream netdev does not
    // reconnect: its link stays down).
    guest.write_all(&100_000u32.to_be_bytes()).unwrap();
    let closed = read(&mut guest, &mut world, 1);
    assert!(closed.is_empty() && world.port.oversize == 1);
    assert_eq!(guest.read(&mut [0u8; 4]).ok(), Some(0), "the card closed the connection");
    let mut guest = UnixStream::connect(&card_sock).unwrap();
    guest.set_read_timeout(Some(Duration::from_millis(1))).unwrap();
    guest.write_all(&framed(&ask(me.ipv4))).unwrap();
    assert_eq!(read(&mut guest, &mut world, reply.len()), reply);
    assert_eq!(world.port.send_errors, 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_idle_card_is_not_simulated_until_a_frame_comes() {
    let dir = std::env::temp_dir().join(format!("rnic-live-idle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (card_sock, guest_sock) = (dir.join("card.sock"), dir.join("guest.sock"));
    let _ = std::fs::remove_file(&guest_sock);
    let guest = UnixDatagram::bind(&guest_sock).unwrap();
    guest.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    let (me, peer) = (port(1), port(0));
    let mut world = LiveWorld { nic: NicSim::new().unwrap(), port: LivePort::bind(&card_sock, &guest_sock, me.mac, me.ipv4).unwrap() };
    // Quiet from the start: once QUIET_CYCLES have passed, nothing more is evaluated.
    world.run_until(rnic_sim::live::QUIET_CYCLES + 1, |_| false);
    let at = world.nic.cycles();
    assert_eq!(world.run_busy(1000), 0);
    assert_eq!(world.nic.cycles(), at, "an idle card's clock stands still");
    // A frame wakes it: it runs (the ARP is answered) and stays awake until quiet again.
    guest.send_to(&arp_frame(1, peer.mac, peer.ipv4, [0xFF; 6], [0; 6], me.ipv4), &card_sock).unwrap();
    assert_eq!(world.run_busy(1000), 1000);
    let mut buf = [0u8; 100];
    let n = guest.recv(&mut buf).unwrap();
    assert_eq!(&buf[..n], arp_frame(2, me.mac, me.ipv4, peer.mac, peer.mac, peer.ipv4));
    let mut ran = 1000;
    while world.run_busy(1000) == 1000 {
        ran += 1000;
    }
    assert!((rnic_sim::live::QUIET_CYCLES..rnic_sim::live::QUIET_CYCLES + 2000).contains(&ran), "{ran} cycles after the frame");
    assert_eq!(world.run_busy(1000), 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn frames_from_the_peer_reach_the_card_no_faster_than_100_gbps() {
    let dir = std::env::temp_dir().join(format!("rnic-live-pace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (card_sock, guest_sock) = (dir.join("card.sock"), dir.join("guest.sock"));
    let _ = std::fs::remove_file(&guest_sock);
    let guest = UnixDatagram::bind(&guest_sock).unwrap();
    let (me, peer) = (port(1), port(0));
    let mut world = LiveWorld { nic: NicSim::new().unwrap(), port: LivePort::bind(&card_sock, &guest_sock, me.mac, me.ipv4).unwrap() };
    // Three 1000-byte frames (not RoCE: the card drops them, counted) waiting in the socket
    // at once: 16 beats each, but 1024 bytes on the wire with FCS, preamble and gap — 20.5
    // cycles at 100 Gb/s and 250 MHz.
    let mut frame = vec![0u8; 1000];
    frame[..6].copy_from_slice(&me.mac);
    frame[6..12].copy_from_slice(&peer.mac);
    frame[12..14].copy_from_slice(&0x88b5u16.to_be_bytes());
    for _ in 0..3 {
        guest.send_to(&frame, &card_sock).unwrap();
    }
    let mut taken = Vec::new();
    for _ in 0..200 {
        let before = world.port.last_rx;
        world.step();
        if world.port.last_rx != before || (taken.is_empty() && world.port.capture().len() == 1) {
            taken.push(world.nic.cycles());
        }
    }
    assert_eq!(world.port.capture().len(), 3);
    assert_eq!(taken.len(), 3, "{taken:?}");
    let wire = rnic_sim::world::wire_cycles(1004, 100.0);
    assert!(taken.windows(2).all(|w| (w[1] - w[0]) as f64 >= wire.floor() && ((w[1] - w[0]) as f64) < wire + 2.0), "{taken:?}: one every {wire:.1} cycles");
    std::fs::remove_dir_all(&dir).ok();
}
