//! The QP context table: the `qp` block's staged words committed into block RAM by `qp.commit`,
//! with one read port (one cycle from address to data). The requester and the responder each
//! keep a copy, so each has its own read port.

use crate::pack_word;
use crate::stream::c;
use rnic_spec::regs::QP_SLOT_BITS;
use rust_hdl::prelude::*;

/// Words of the `qp` block's staging registers (`QpContext::registers` order); the RTL takes
/// them by position: 0 state, 1 dest_qpn, 2/3 dest MAC low/high, 4 flags, 5 vlan_tci,
/// 6 traffic, 7 flow_label, 8 udp_sport, 9..=12 dest IP (most significant first), 13 pkey,
/// 14 pmtu, 15 sq_psn, 16/17 sq_base low/high, 18 sq_log_size, 19 pd, 20 rq_psn, 21 send_cq,
/// 22/23 rq_base low/high, 24 rq_log_size, 25 recv_cq, 26 retry (taken by the completer;
/// its `max_rd_atomic` bits 19:16 kept here as `max_rd`, `max_dest_rd_atomic` 23:20 as
/// `max_dest_rd`).
pub const QP_STAGE_WORDS: usize = 27;
/// Bits of a context word.
pub const CTX_BITS: usize = 469;

pack_word! {
    /// A QP's context as its RAM holds it. The MAC, IP and ring base words sit side by side so
    /// each is one slice.
    lsb_first QpCtxWord: 469 {
        state: 3, dest_qpn: 24, mac_lo: 32, mac_hi: 16, flags: 2, vlan_tci: 16, traffic: 16,
        flow_label: 20, udp_sport: 16, ip3: 32, ip2: 32, ip1: 32, ip0: 32, pkey: 16, pmtu: 4,
        base_lo: 32, base_hi: 32, log_size: 4, pd: 16, send_cq: 8, rq_base_lo: 32, rq_base_hi: 32,
        rq_log: 4, recv_cq: 8, max_rd: 4, max_dest_rd: 4,
    }
}

/// Bit offset of field `name` in a context word.
pub fn ctx_at(name: &str) -> Constant<Bits<9>> {
    let i = QpCtxWord::FIELDS.iter().position(|f| f.0 == name).unwrap_or_else(|| panic!("field {name}"));
    c::<9>(QpCtxWord::FIELDS[..i].iter().map(|f| f.1 as u64).sum())
}

crate::hdl_block! {
    pub struct QpTable {
        pub clock: Signal<In, Clock>,
        pub qp_stage: [Signal<In, Bits<32>>; QP_STAGE_WORDS],
        pub qp_commit_valid: Signal<In, Bit>,
        /// The commit command's value: the QPN.
        pub qp_commit: Signal<In, Bits<32>>,
        /// A commit to a QPN this table holds happens in this cycle.
        pub commit_ok: Signal<Out, Bit>,
        pub read_address: Signal<In, Bits<QP_SLOT_BITS>>,
        /// The context at the previous cycle's `read_address`.
        pub read_data: Signal<Out, Bits<CTX_BITS>>,

        ram: RAM<Bits<CTX_BITS>, QP_SLOT_BITS>,
        ctx_word: QpCtxWord,
        zero24: Constant<Bits<24>> = c::<24>(0),
    }
}

impl Logic for QpTable {
    #[hdl_gen]
    fn update(&mut self) {
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.commit_ok.next = self.qp_commit_valid.val() & (self.qp_commit.val().get_bits::<24>(8) == self.zero24.val());
        self.ctx_word.state.next = self.qp_stage[0].val().get_bits::<3>(0);
        self.ctx_word.dest_qpn.next = self.qp_stage[1].val().get_bits::<24>(0);
        self.ctx_word.mac_lo.next = self.qp_stage[2].val();
        self.ctx_word.mac_hi.next = self.qp_stage[3].val().get_bits::<16>(0);
        self.ctx_word.flags.next = self.qp_stage[4].val().get_bits::<2>(0);
        self.ctx_word.vlan_tci.next = self.qp_stage[5].val().get_bits::<16>(0);
        self.ctx_word.traffic.next = self.qp_stage[6].val().get_bits::<16>(0);
        self.ctx_word.flow_label.next = self.qp_stage[7].val().get_bits::<20>(0);
        self.ctx_word.udp_sport.next = self.qp_stage[8].val().get_bits::<16>(0);
        self.ctx_word.ip0.next = self.qp_stage[9].val();
        self.ctx_word.ip1.next = self.qp_stage[10].val();
        self.ctx_word.ip2.next = self.qp_stage[11].val();
        self.ctx_word.ip3.next = self.qp_stage[12].val();
        self.ctx_word.pkey.next = self.qp_stage[13].val().get_bits::<16>(0);
        self.ctx_word.pmtu.next = self.qp_stage[14].val().get_bits::<4>(0);
        self.ctx_word.base_lo.next = self.qp_stage[16].val();
        self.ctx_word.base_hi.next = self.qp_stage[17].val();
        self.ctx_word.log_size.next = self.qp_stage[18].val().get_bits::<4>(0);
        self.ctx_word.pd.next = self.qp_stage[19].val().get_bits::<16>(0);
        self.ctx_word.send_cq.next = self.qp_stage[21].val().get_bits::<8>(0);
        self.ctx_word.rq_base_lo.next = self.qp_stage[22].val();
        self.ctx_word.rq_base_hi.next = self.qp_stage[23].val();
        self.ctx_word.rq_log.next = self.qp_stage[24].val().get_bits::<4>(0);
        self.ctx_word.recv_cq.next = self.qp_stage[25].val().get_bits::<8>(0);
        self.ctx_word.max_rd.next = self.qp_stage[26].val().get_bits::<4>(16);
        self.ctx_word.max_dest_rd.next = self.qp_stage[26].val().get_bits::<4>(20);
        self.ram.write_enable.next = self.commit_ok.val();
        self.ram.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
        self.ram.write_data.next = self.ctx_word.word.val();
        self.ram.read_address.next = self.read_address.val();
        self.read_data.next = self.ram.read_data.val();
    }
}
