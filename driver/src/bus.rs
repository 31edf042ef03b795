//! The bus a driver reaches the card through: BAR0 register access, memory the card reaches by
//! DMA (allocated and mapped at an IOVA the driver chooses), and waiting. Two implementations:
//! the simulated cards (`crate::sim_bus`) and, later, VFIO through `pci-driver` (whose device
//! traits are sealed, hence this trait).

/// Why a bus operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusError {
    /// The card did not answer (simulated: a hardware bug; real: the link is down).
    Timeout { offset: u32, write: bool },
    /// The offset is outside BAR0 or not 4-byte aligned.
    BadOffset(u32),
    /// No DMA memory of that size and alignment could be had.
    NoDmaMemory { len: usize, align: usize },
    /// The range is not inside memory this bus allocated for DMA.
    NotDmaMemory { iova: u64, len: usize },
    /// Freeing an IOVA that is not the start of a live allocation.
    NotAllocated(u64),
    /// The IOMMU refused to unmap a buffer being freed (it stays allocated).
    Unmap(u64),
}

impl std::fmt::Display for BusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BusError::Timeout { offset, write } => {
                write!(f, "BAR0 {} at {offset:#06x} got no answer", if *write { "write" } else { "read" })
            }
            BusError::BadOffset(o) => write!(f, "BAR0 offset {o:#x} is not an aligned register offset"),
            BusError::NoDmaMemory { len, align } => {
                write!(f, "cannot allocate {len} bytes of DMA memory aligned to {align}: use a smaller buffer")
            }
            BusError::NotDmaMemory { iova, len } => {
                write!(f, "{len} bytes at IOVA {iova:#x} are not inside allocated DMA memory")
            }
            BusError::Unmap(iova) => {
                write!(f, "the IOMMU refused to unmap the DMA buffer at IOVA {iova:#x}; it stays allocated")
            }
            BusError::NotAllocated(iova) => {
                write!(f, "IOVA {iova:#x} is not the start of allocated DMA memory: free what dma_alloc returned, once")
            }
        }
    }
}

impl std::error::Error for BusError {}

pub trait Bus {
    /// Read the 32-bit register at byte `offset` of BAR0.
    fn read32(&mut self, offset: u32) -> Result<u32, BusError>;
    /// Write the 32-bit register at byte `offset` of BAR0.
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError>;
    /// Allocate `len` bytes the card can reach by DMA, aligned to `align` (a power of two, at
    /// most 4096); returns their IOVA. They read as zero (simulated: as the memory's fill byte).
    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<u64, BusError>;
    /// Give back an allocation (`iova` as `dma_alloc` returned it): the card can no longer
    /// reach it, and its IOVAs may be handed out again.
    fn dma_free(&mut self, iova: u64) -> Result<(), BusError>;
    /// Write bytes of DMA memory (as the CPU does).
    fn dma_write(&mut self, iova: u64, data: &[u8]) -> Result<(), BusError>;
    /// Read bytes of DMA memory.
    fn dma_read(&mut self, iova: u64, len: usize) -> Result<Vec<u8>, BusError>;
    /// Let `cycles` cycles of the card's 250 MHz core clock pass.
    fn wait(&mut self, cycles: u64);
}

/// Checks an offset against BAR0's size and alignment.
pub fn check_offset(offset: u32) -> Result<(), BusError> {
    if !offset.is_multiple_of(4) || offset >= 1 << rnic_spec::regs::BAR0_ADDR_BITS {
        return Err(BusError::BadOffset(offset));
    }
    Ok(())
}

/// IOVA bookkeeping for a bus that maps DMA memory where it likes: allocations are placed at
/// the lowest free address (first fit), with a guard page between neighbours, and every CPU
/// access is checked against them.
#[derive(Debug, Clone)]
pub struct IovaSpace {
    base: u64,
    end: u64,
    /// Live allocations (IOVA, length), sorted by IOVA.
    allocs: Vec<(u64, usize)>,
}

const PAGE: u64 = 4096;

impl IovaSpace {
    pub fn new(base: u64, size: u64) -> IovaSpace {
        IovaSpace { base, end: base + size, allocs: Vec::new() }
    }

    pub fn alloc(&mut self, len: usize, align: usize) -> Result<u64, BusError> {
        let no = BusError::NoDmaMemory { len, align };
        if len == 0 || !align.is_power_of_two() || align as u64 > PAGE {
            return Err(no);
        }
        // A guard page between allocations: a DMA overrun lands in memory nobody owns.
        let after = |iova: u64, len: usize| (iova + len as u64).next_multiple_of(PAGE) + PAGE;
        let mut from = self.base;
        for (at, &(next, next_len)) in self.allocs.iter().enumerate() {
            let iova = from.next_multiple_of(align as u64);
            if iova.checked_add(len as u64).is_some_and(|_| after(iova, len) <= next) {
                self.allocs.insert(at, (iova, len));
                return Ok(iova);
            }
            from = after(next, next_len);
        }
        let iova = from.next_multiple_of(align as u64);
        iova.checked_add(len as u64).filter(|&e| e <= self.end).ok_or(no)?;
        self.allocs.push((iova, len));
        Ok(iova)
    }

    /// Forget the allocation at `iova`; returns its length.
    pub fn free(&mut self, iova: u64) -> Result<usize, BusError> {
        let at = self.allocs.iter().position(|&(a, _)| a == iova).ok_or(BusError::NotAllocated(iova))?;
        Ok(self.allocs.remove(at).1)
    }

    /// Ok if `[iova, iova + len)` lies inside one allocation.
    pub fn check(&self, iova: u64, len: usize) -> Result<(), BusError> {
        let inside = self.allocs.iter().any(|&(a, l)| iova >= a && (iova - a).checked_add(len as u64).is_some_and(|e| e <= l as u64));
        if inside {
            Ok(())
        } else {
            Err(BusError::NotDmaMemory { iova, len })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iova_space_aligns_separates_and_checks() {
        let mut s = IovaSpace::new(0x1000_0000, 1 << 20);
        let a = s.alloc(100, 64).unwrap();
        let b = s.alloc(4096, 4096).unwrap();
        assert_eq!(a % 64, 0);
        assert!(b >= a + 100 + PAGE && b.is_multiple_of(4096), "a guard page between allocations");
        assert!(s.check(a, 100).is_ok() && s.check(a + 99, 1).is_ok());
        assert!(s.check(a + 99, 2).is_err() && s.check(a - 1, 1).is_err());
        assert!(s.alloc(2 << 20, 64).is_err());
        assert!(s.alloc(64, 3).is_err());

        // Freed space is handed out again, lowest first, guard pages kept; a second free of
        // the same IOVA, or of one inside an allocation, is refused.
        let c = s.alloc(100, 64).unwrap();
        assert_eq!(s.free(b), Ok(4096));
        assert_eq!(s.free(b), Err(BusError::NotAllocated(b)));
        assert_eq!(s.free(a + 64), Err(BusError::NotAllocated(a + 64)));
        assert!(s.check(b, 1).is_err(), "freed memory is not DMA memory any more");
        let d = s.alloc(4096, 4096).unwrap();
        assert_eq!(d, b, "the hole is reused");
        assert!(s.alloc(4096, 4096).unwrap() > c, "no room left in the hole: placed after the last");
        s.free(a).unwrap();
        let e = s.alloc(PAGE as usize * 2, 64).unwrap();
        assert!(e > c, "a hole too small for two pages and a guard is skipped");
        let f = s.alloc(16, 16).unwrap();
        assert_eq!(f, s.base, "a small one fits where `a` was");
    }
}
