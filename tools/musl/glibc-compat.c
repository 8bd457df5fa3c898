/*
 * What the Rust standard library for x86_64-unknown-linux-gnu (and the
 * libgcc_eh it unwinds with) expects of glibc and musl does not provide,
 * for the executable as distributed, which tools/release-build.sh links
 * statically with musl's C library when Debian's musl-tools is installed
 * (README in this directory: why, and what is checked).
 *
 * Compiled with musl-gcc and linked before the C library, so these
 * definitions are the ones used.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <emmintrin.h>

/*
 * std asks for glibc's version before it uses posix_spawn (2.24 or later
 * returns exec errors correctly). A version it cannot read makes it fork
 * and exec instead, which is correct with any C library.
 */
const char *gnu_get_libc_version(void) { return "musl"; }

/*
 * libgcc_eh as built for glibc 2.35+ finds the unwind tables of the code
 * at `pc` with glibc's _dl_find_object (struct dl_find_object, x86-64
 * layout of <dlfcn.h>). A static executable is one object: its loadable
 * segments and its PT_GNU_EH_FRAME, found with dl_iterate_phdr, which musl
 * answers for the executable from the auxiliary vector.
 */
struct dl_find_object {
  unsigned long long dlfo_flags;
  void *dlfo_map_start;
  void *dlfo_map_end;
  void *dlfo_link_map;
  void *dlfo_eh_frame;
  unsigned long long dlfo_reserved[7];
};

struct find_query {
  uintptr_t pc;
  struct dl_find_object *result;
  int found;
};

static int find_object_in(struct dl_phdr_info *info, size_t size, void *data) {
  struct find_query *q = data;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  void *eh_frame = NULL;
  (void)size;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + p->p_vaddr;
    if (p->p_type == PT_LOAD) {
      if (start < lo) lo = start;
      if (start + p->p_memsz > hi) hi = start + p->p_memsz;
    } else if (p->p_type == PT_GNU_EH_FRAME) {
      eh_frame = (void *)start;
    }
  }
  if (q->pc < lo || q->pc >= hi) return 0;
  q->result->dlfo_flags = 0;
  q->result->dlfo_map_start = (void *)lo;
  q->result->dlfo_map_end = (void *)hi;
  q->result->dlfo_link_map = NULL;
  q->result->dlfo_eh_frame = eh_frame;
  q->found = 1;
  return 1;
}

int _dl_find_object(void *pc, struct dl_find_object *result) {
  struct find_query q = {(uintptr_t)pc, result, 0};
  dl_iterate_phdr(find_object_in, &q);
  return q.found ? 0 : -1;
}

/*
 * libgcc_eh calls these through weak references, which do not pull them
 * out of musl's libc.a: without a strong reference somewhere, the first
 * unwind (a caught panic) calls address 0.
 */
void *const flate_musl_keep[] = {
    (void *)pthread_once,        (void *)pthread_mutex_lock,
    (void *)pthread_mutex_unlock, (void *)pthread_key_create,
    (void *)pthread_getspecific, (void *)pthread_setspecific,
};

/*
 * musl's memcmp and bcmp compare a byte at a time. Rust compares every
 * string and byte slice with them (map keys, sorting), and on
 * kube-prometheus-stack that made renders slower than with glibc's. These
 * compare eight bytes at a time, the first differing word in byte order
 * deciding (memcmp's contract: the sign of the first differing byte,
 * as unsigned char).
 */
static inline uint64_t load8(const unsigned char *p) {
  uint64_t x;
  __builtin_memcpy(&x, p, 8);
  return x;
}

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *p = a, *q = b;
  for (; n >= 8; p += 8, q += 8, n -= 8) {
    uint64_t x = load8(p), y = load8(q);
    if (x != y) {
      x = __builtin_bswap64(x);
      y = __builtin_bswap64(y);
      return x < y ? -1 : 1;
    }
  }
  for (; n; n--, p++, q++)
    if (*p != *q) return *p - *q;
  return 0;
}

int bcmp(const void *a, const void *b, size_t n) {
  const unsigned char *p = a, *q = b;
  for (; n >= 8; p += 8, q += 8, n -= 8)
    if (load8(p) != load8(q)) return 1;
  for (; n; n--, p++, q++)
    if (*p != *q) return 1;
  return 0;
}

/*
 * musl's memcpy copies with `rep movsq`, whose start-up costs more than
 * the short copies that make up most of a render (strings, small
 * vectors): 12% of kube-prometheus-stack's samples were in it. These copy
 * up to 64 bytes with unaligned loads and stores that may overlap
 * (all loads before any store, which makes memmove the same code), longer
 * runs 64 bytes a step, and from 4 KiB with `rep movsb` (fast on
 * processors with ERMS, and never slower than musl's).
 */
static inline void copy_small(unsigned char *d, const unsigned char *s, size_t n) {
  if (n >= 32) {
    __m128i a = _mm_loadu_si128((const __m128i *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(s + n - 32));
    __m128i e = _mm_loadu_si128((const __m128i *)(s + n - 16));
    _mm_storeu_si128((__m128i *)d, a);
    _mm_storeu_si128((__m128i *)(d + 16), b);
    _mm_storeu_si128((__m128i *)(d + n - 32), c);
    _mm_storeu_si128((__m128i *)(d + n - 16), e);
  } else if (n >= 16) {
    __m128i a = _mm_loadu_si128((const __m128i *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(s + n - 16));
    _mm_storeu_si128((__m128i *)d, a);
    _mm_storeu_si128((__m128i *)(d + n - 16), b);
  } else if (n >= 8) {
    uint64_t a, b;
    __builtin_memcpy(&a, s, 8);
    __builtin_memcpy(&b, s + n - 8, 8);
    __builtin_memcpy(d, &a, 8);
    __builtin_memcpy(d + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    __builtin_memcpy(&a, s, 4);
    __builtin_memcpy(&b, s + n - 4, 4);
    __builtin_memcpy(d, &a, 4);
    __builtin_memcpy(d + n - 4, &b, 4);
  } else if (n) {
    unsigned char a = s[0], b = s[n / 2], c = s[n - 1];
    d[0] = a;
    d[n / 2] = b;
    d[n - 1] = c;
  }
}

/* 64 bytes a step from the start; the last (overlapping) 64 are loaded
   first and stored last, so the tail needs no byte loop. */
static inline void copy_forward(unsigned char *d, const unsigned char *s, size_t n) {
  __m128i t0 = _mm_loadu_si128((const __m128i *)(s + n - 64));
  __m128i t1 = _mm_loadu_si128((const __m128i *)(s + n - 48));
  __m128i t2 = _mm_loadu_si128((const __m128i *)(s + n - 32));
  __m128i t3 = _mm_loadu_si128((const __m128i *)(s + n - 16));
  unsigned char *end = d + n - 64;
  for (; d < end; d += 64, s += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
    __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
    _mm_storeu_si128((__m128i *)d, a);
    _mm_storeu_si128((__m128i *)(d + 16), b);
    _mm_storeu_si128((__m128i *)(d + 32), c);
    _mm_storeu_si128((__m128i *)(d + 48), e);
  }
  _mm_storeu_si128((__m128i *)end, t0);
  _mm_storeu_si128((__m128i *)(end + 16), t1);
  _mm_storeu_si128((__m128i *)(end + 32), t2);
  _mm_storeu_si128((__m128i *)(end + 48), t3);
}

/* The same from the end, for a destination above an overlapping source. */
static inline void copy_backward(unsigned char *d, const unsigned char *s, size_t n) {
  __m128i h0 = _mm_loadu_si128((const __m128i *)s);
  __m128i h1 = _mm_loadu_si128((const __m128i *)(s + 16));
  __m128i h2 = _mm_loadu_si128((const __m128i *)(s + 32));
  __m128i h3 = _mm_loadu_si128((const __m128i *)(s + 48));
  unsigned char *start = d;
  d += n;
  s += n;
  for (; d > start + 64; d -= 64, s -= 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(s - 16));
    __m128i b = _mm_loadu_si128((const __m128i *)(s - 32));
    __m128i c = _mm_loadu_si128((const __m128i *)(s - 48));
    __m128i e = _mm_loadu_si128((const __m128i *)(s - 64));
    _mm_storeu_si128((__m128i *)(d - 16), a);
    _mm_storeu_si128((__m128i *)(d - 32), b);
    _mm_storeu_si128((__m128i *)(d - 48), c);
    _mm_storeu_si128((__m128i *)(d - 64), e);
  }
  _mm_storeu_si128((__m128i *)start, h0);
  _mm_storeu_si128((__m128i *)(start + 16), h1);
  _mm_storeu_si128((__m128i *)(start + 32), h2);
  _mm_storeu_si128((__m128i *)(start + 48), h3);
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (n <= 64) {
    copy_small(d, s, n);
  } else if (n < 4096) {
    copy_forward(d, s, n);
  } else {
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
  }
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (n <= 64) {
    copy_small(d, s, n);
  } else if ((uintptr_t)d - (uintptr_t)s >= n) {
    /* the destination does not start inside the source: forward is safe */
    copy_forward(d, s, n);
  } else {
    copy_backward(d, s, n);
  }
  return dst;
}
