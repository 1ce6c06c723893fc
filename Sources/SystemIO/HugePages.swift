import Foundation

/// Memory for the packet loop's buffer pool, backed by transparent huge pages where the kernel
/// allows it (`madvise(MADV_HUGEPAGE)`; `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise`
/// on Debian). A gigabit link holds a few thousand packets in flight, spread over megabytes of pool;
/// with 4 KB pages the first touch of each released packet missed the TLB (5% of the loop's time at
/// 1 Gbit/s, a nested page walk on a VM), with 2 MB pages a handful of entries cover them all.
/// Pages are still committed only when first touched (2 MB at a time).
public enum HugePages {
    public static let size = 2 << 20

    /// `byteCount` bytes aligned to a huge page, advised for huge pages (best effort: without them
    /// the memory is ordinary). Release with `deallocate`.
    public static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        let rounded = (max(byteCount, 1) + size - 1) / size * size
        var p: UnsafeMutableRawPointer?
        guard posix_memalign(&p, size, rounded) == 0, let p else {
            return malloc(max(byteCount, 1))!
        }
        _ = madvise(p, rounded, MADV_HUGEPAGE)
        return p
    }

    /// Frees what `allocate` returned.
    public static func deallocate(_ p: UnsafeMutableRawPointer) { free(p) }
}
