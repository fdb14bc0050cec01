//! The wasm heap (wasm32 only, beside bindings.rs, which reads it for `heapBytes`): the
//! global allocator, counting live bytes and growing the linear memory in large steps.

/// Live heap bytes: allocated and not yet freed.
pub(crate) fn live_bytes() -> usize {
    LIVE_BYTES.load(std::sync::atomic::Ordering::Relaxed)
}

static LIVE_BYTES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The system allocator (dlmalloc on wasm32), counting live bytes (one add per
/// allocation), and growing the linear memory in large steps.
///
/// Why the steps: dlmalloc grows memory 64 KiB at a time, as it runs out, and every
/// `memory.grow` is costly in V8 (a new ArrayBuffer for `memory.buffer`, external-
/// memory accounting that triggers garbage collections). A capture of 100k short
/// connections made ~4000 such calls: 8.8 s of a 10 s analysis, 2.2 s once the
/// memory had been grown beforehand (node --cpu-prof: 26 % in dlmalloc's
/// `sys::alloc`, 24 % in the garbage collector). So whenever dlmalloc has just
/// grown the memory, we grow it once more by 1/16 of its size (8..256 MiB) by
/// allocating and freeing one block, which dlmalloc then reuses for everything that
/// follows. Cost: at most 1/16 more memory than needed, in one place.
struct CountingAlloc;

/// Memory size (64 KiB pages) seen after the last allocation.
static SEEN_PAGES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[inline]
fn after_alloc() {
    use std::alloc::GlobalAlloc;
    use std::sync::atomic::Ordering::Relaxed;
    let pages = core::arch::wasm32::memory_size(0);
    if pages == SEEN_PAGES.load(Relaxed) {
        return;
    }
    let first = SEEN_PAGES.swap(usize::MAX, Relaxed) == 0; // also blocks re-entry
    if !first {
        let step = ((pages << 16) / 16).clamp(8 << 20, 256 << 20);
        if let Ok(layout) = std::alloc::Layout::from_size_align(step, 16) {
            // SAFETY: a plain allocation freed at once with the same layout.
            unsafe {
                let p = std::alloc::System.alloc(layout);
                if !p.is_null() {
                    std::alloc::System.dealloc(p, layout);
                }
            }
        }
    }
    SEEN_PAGES.store(core::arch::wasm32::memory_size(0), Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; only a counter is added.
unsafe impl std::alloc::GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let p = std::alloc::System.alloc(layout);
        if !p.is_null() {
            LIVE_BYTES.fetch_add(layout.size(), std::sync::atomic::Ordering::Relaxed);
            after_alloc();
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        let p = std::alloc::System.alloc_zeroed(layout);
        if !p.is_null() {
            LIVE_BYTES.fetch_add(layout.size(), std::sync::atomic::Ordering::Relaxed);
            after_alloc();
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        std::alloc::System.dealloc(ptr, layout);
        LIVE_BYTES.fetch_sub(layout.size(), std::sync::atomic::Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let p = std::alloc::System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE_BYTES.fetch_add(new_size, std::sync::atomic::Ordering::Relaxed);
            LIVE_BYTES.fetch_sub(layout.size(), std::sync::atomic::Ordering::Relaxed);
            after_alloc();
        }
        p
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;
