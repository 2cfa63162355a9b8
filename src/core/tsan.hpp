#pragma once
// Private: ThreadSanitizer annotations for hand-offs it cannot see. oneTBB hands tasks
// between threads inside libtbb, which Debian does not build with TSan. Under TSan we
// tell it about each hand-off: a release before work is given to oneTBB, an acquire
// where it starts, and the same pair for the way back. Elsewhere these are nothing.

#if defined(__SANITIZE_THREAD__)
#define GE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GE_TSAN 1
#endif
#endif

#ifdef GE_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#define GE_HANDOFF_RELEASE(p) __tsan_release(p)
#define GE_HANDOFF_ACQUIRE(p) __tsan_acquire(p)
#else
#define GE_HANDOFF_RELEASE(p) ((void)(p))
#define GE_HANDOFF_ACQUIRE(p) ((void)(p))
#endif
