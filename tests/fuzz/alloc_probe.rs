//! A global allocator that remembers, per thread, the largest single
//! allocation asked for, so that a test can assert that a reader given a
//! hostile header did not try to allocate what the header claims.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Largest allocation (bytes) asked for on this thread since the last
    /// `largest_allocation_in` began.
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, noting each request's size.
pub struct ProbingAllocator;

fn note(size: usize) {
    // `try_with`: the thread-local may be gone while a thread exits.
    let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
}

unsafe impl GlobalAlloc for ProbingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

/// Runs `f` and returns its result with the largest allocation (bytes) it
/// asked for on this thread, granted or not.
pub fn largest_allocation_in<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = LARGEST.with(|l| l.replace(0));
    let result = f();
    let largest = LARGEST.with(|l| l.replace(before.max(l.get())));
    (result, largest)
}
