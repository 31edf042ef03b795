//! The goodput benchmark's floors: 64 KiB WRITEs and SENDs at PMTU 4096 over the 100 Gb/s link
//! model reach at least 95 % of what the link allows, on one QP and on 16, every packet placed
//! by the receiving card (cycle counts from the simulator; the README has the whole tables from
//! `rnic sim bench write` and `rnic sim bench send`).

use rnic_driver::bench::goodput;
use rnic_spec::desc::SendOp;

#[test]
fn writes_and_sends_of_64_kib_reach_95_percent_of_the_link() {
    for op in [SendOp::Write, SendOp::Send] {
        for qps in [1, 16] {
            let r = goodput(op, 64 << 10, 4096, qps, 2 << 20).unwrap();
            let what = format!("{op:?}, {qps} QPs");
            assert!(r.fraction() >= 0.95, "{what}: {:.2} Gb/s is {:.1} % of {:.2}", r.gbps(), 100.0 * r.fraction(), r.limit_gbps());
            assert!(r.limit_gbps() > 97.0 && r.limit_gbps() < 100.0, "the link limit counts headers and gaps");
            assert_eq!(r.packets, r.messages * 16);
            assert_eq!(r.placed, r.packets, "{what}: the receiver placed every packet");
        }
    }
}
