//! Random RoCE v2 packets for the RTL tests, built with the spec's packet builder.

#![allow(dead_code)]

use rand::rngs::SmallRng;
use rand::Rng;
use rnic_spec::wire::eth::{EthHeader, Vlan};
use rnic_spec::wire::ib::{Aeth, AtomicEth, Bth, Deth, Ext, Reth};
use rnic_spec::wire::ip::{Ipv4Header, Ipv6Header};
use rnic_spec::wire::opcode::OPCODES;
use rnic_spec::wire::packet::{IpHeader, RocePacket};
use rnic_spec::wire::ExtHeader;

pub fn random_ext(rng: &mut SmallRng, kind: ExtHeader) -> Ext {
    match kind {
        ExtHeader::Reth => Ext::Reth(Reth { va: rng.gen(), rkey: rng.gen(), dma_len: rng.gen() }),
        ExtHeader::Aeth => Ext::Aeth(Aeth { syndrome: rng.gen(), msn: rng.gen_range(0..1 << 24) }),
        ExtHeader::ImmDt => Ext::ImmDt(rng.gen()),
        ExtHeader::Ieth => Ext::Ieth(rng.gen()),
        ExtHeader::Deth => Ext::Deth(Deth { qkey: rng.gen(), src_qp: rng.gen_range(0..1 << 24) }),
        ExtHeader::AtomicEth => Ext::AtomicEth(AtomicEth { va: rng.gen(), rkey: rng.gen(), swap_add: rng.gen(), compare: rng.gen() }),
        ExtHeader::AtomicAckEth => Ext::AtomicAckEth(rng.gen()),
        ExtHeader::CnpReserved => Ext::CnpReserved,
    }
}

/// A valid packet: random opcode from the table, IPv4 or IPv6, optional VLAN, random fields,
/// payload of 0..=max_payload bytes where the opcode allows one.
pub fn random_packet(rng: &mut SmallRng, max_payload: usize) -> RocePacket {
    let op = &OPCODES[rng.gen_range(0..OPCODES.len())];
    let eth = EthHeader {
        dst: rng.gen(),
        src: rng.gen(),
        vlan: rng.gen_bool(0.3).then(|| Vlan { pcp: rng.gen_range(0..8), dei: rng.gen(), vid: rng.gen_range(0..4096) }),
        ethertype: 0,
    };
    let ip = if rng.gen_bool(0.5) {
        IpHeader::V6(Ipv6Header {
            dscp: rng.gen_range(0..64),
            ecn: rng.gen_range(0..4),
            flow_label: rng.gen_range(0..1 << 20),
            hop_limit: rng.gen(),
            src: rng.gen(),
            dst: rng.gen(),
            ..Default::default()
        })
    } else {
        IpHeader::V4(Ipv4Header {
            dscp: rng.gen_range(0..64),
            ecn: rng.gen_range(0..4),
            id: rng.gen(),
            flags: if rng.gen() { 0b010 } else { 0 },
            ttl: rng.gen(),
            src: rng.gen(),
            dst: rng.gen(),
            ..Default::default()
        })
    };
    let bth = Bth {
        opcode: op.code,
        se: rng.gen(),
        mig: rng.gen(),
        pkey: rng.gen(),
        fecn: rng.gen(),
        becn: rng.gen(),
        dest_qp: rng.gen_range(0..1 << 24),
        ack_req: rng.gen(),
        psn: rng.gen_range(0..1 << 24),
        ..Default::default()
    };
    let ext = op.ext.iter().map(|&k| random_ext(rng, k)).collect();
    let len = if op.payload {
        match rng.gen_range(0..4) {
            0 => rng.gen_range(0..16),
            1 => max_payload,
            _ => rng.gen_range(0..=max_payload),
        }
    } else {
        0
    };
    let payload = (0..len).map(|_| rng.gen()).collect();
    let mut p = RocePacket::new(eth, ip, bth, ext, payload);
    p.udp.src_port = rng.gen();
    p
}
