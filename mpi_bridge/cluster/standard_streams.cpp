// printf and its kin on standard output and error inside a shared region.
//
// The C library keeps a stream's bytes in its buffer (in the program's heap)
// until a line ends (on a terminal, which mpirun gives its ranks) or the
// buffer fills. Threads of several ranks printing into that one buffer all
// change the same bytes: the merge finds a conflict, the region cannot be
// shared, and once a line had reached the job's output the job stopped
// (OpenMP's "hello world" did). So inside a shared region what the program
// writes to stdout or stderr through stdio goes straight to the descriptor,
// formatted on the caller's stack, and the stream is not touched: each
// call's bytes at once, as an unbuffered stream writes them (one process's
// threads interleave at line or buffer boundaries, these at calls). Rank 0
// writes to the job's output; another rank's bytes are caught and written by
// rank 0 at the next merge (output_relay.hpp). What serial code left in the
// buffers goes out when a region begins (flush_standard_streams), so the
// order of serial and parallel output is kept.
//
// Not covered: a stream's macros that the compiler inlines
// (putchar_unlocked), and the Fortran runtime's own units, whose state is
// the program's memory: printing there from several ranks conflicts, and
// the region runs replicated.
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "allocation.hpp"
#include "interposed.hpp"
#include "standard_streams.hpp"

namespace selfsched::cluster {
namespace {

bool straight_to_descriptor(FILE* stream) {
  if (stream != stdout && stream != stderr) return false;
  cluster_process* p = cluster_process::get();
  return p != nullptr && p->ranks() > 1 && p->region().active && p->region().shared;
}

// Every byte to the stream's descriptor; false on an error (as the stream's
// own write would fail).
bool write_all(FILE* stream, const char* bytes, std::size_t size) {
  const int fd = fileno(stream);
  while (size > 0) {
    const ssize_t n = write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

int print_straight(FILE* stream, const char* format, va_list args) {
  char line[1024];
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(line, sizeof line, format, args);
  if (n < 0) {
    va_end(again);
    return n;
  }
  bool written;
  if (static_cast<std::size_t>(n) < sizeof line) {
    written = write_all(stream, line, static_cast<std::size_t>(n));
  } else {
    runtime_scope scope;  // not the program's heap: its layout must stay alike on every rank
    std::string longer(static_cast<std::size_t>(n) + 1, '\0');
    std::vsnprintf(longer.data(), longer.size(), format, again);
    written = write_all(stream, longer.data(), static_cast<std::size_t>(n));
  }
  va_end(again);
  return written ? n : -1;
}

}  // namespace

void flush_standard_streams() {
  std::fflush(stdout);
  std::fflush(stderr);
}

}  // namespace selfsched::cluster

using selfsched::cluster::next_definition;
using selfsched::cluster::print_straight;
using selfsched::cluster::straight_to_descriptor;
using selfsched::cluster::write_all;

#define SELFSCHED_EXPORT extern "C" __attribute__((visibility("default")))

SELFSCHED_EXPORT int vfprintf(FILE* stream, const char* format, va_list args) {
  SELFSCHED_NEXT(vfprintf);
  if (straight_to_descriptor(stream)) return print_straight(stream, format, args);
  return real(stream, format, args);
}

SELFSCHED_EXPORT int vprintf(const char* format, va_list args) { return vfprintf(stdout, format, args); }

SELFSCHED_EXPORT int fprintf(FILE* stream, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vfprintf(stream, format, args);
  va_end(args);
  return n;
}

SELFSCHED_EXPORT int printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vfprintf(stdout, format, args);
  va_end(args);
  return n;
}

// The fortified forms (-D_FORTIFY_SOURCE): the C library checks `%n` in
// writable formats; formatted straight, vsnprintf does what it does.
extern "C" int __vfprintf_chk(FILE*, int, const char*, va_list);
SELFSCHED_EXPORT int __vfprintf_chk(FILE* stream, int flag, const char* format, va_list args) {
  SELFSCHED_NEXT(__vfprintf_chk);
  if (straight_to_descriptor(stream)) return print_straight(stream, format, args);
  return real(stream, flag, format, args);
}

extern "C" int __vprintf_chk(int, const char*, va_list);
SELFSCHED_EXPORT int __vprintf_chk(int flag, const char* format, va_list args) {
  return __vfprintf_chk(stdout, flag, format, args);
}

extern "C" int __fprintf_chk(FILE*, int, const char*, ...);
SELFSCHED_EXPORT int __fprintf_chk(FILE* stream, int flag, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = __vfprintf_chk(stream, flag, format, args);
  va_end(args);
  return n;
}

extern "C" int __printf_chk(int, const char*, ...);
SELFSCHED_EXPORT int __printf_chk(int flag, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = __vfprintf_chk(stdout, flag, format, args);
  va_end(args);
  return n;
}

// The locked and unlocked forms of each call, alike: one definition each.
#define SELFSCHED_FPUTS(name)                                                                           \
  SELFSCHED_EXPORT int name(const char* text, FILE* stream) {                                          \
    SELFSCHED_NEXT(name);                                                                                \
    if (straight_to_descriptor(stream)) return write_all(stream, text, std::strlen(text)) ? 1 : EOF;    \
    return real(text, stream);                                                                           \
  }
#define SELFSCHED_FWRITE(name)                                                                          \
  SELFSCHED_EXPORT std::size_t name(const void* data, std::size_t size, std::size_t count, FILE* stream) { \
    SELFSCHED_NEXT(name);                                                                                \
    if (straight_to_descriptor(stream) && size != 0)                                                     \
      return write_all(stream, static_cast<const char*>(data), size * count) ? count : 0;               \
    return real(data, size, count, stream);                                                              \
  }
#define SELFSCHED_PUTC(name)                                                                            \
  SELFSCHED_EXPORT int name(int c, FILE* stream) {                                                       \
    SELFSCHED_NEXT(name);                                                                                \
    return straight_to_descriptor(stream) ? put_straight(c, stream) : real(c, stream);                  \
  }
#define SELFSCHED_PUTCHAR(name)                                                                         \
  SELFSCHED_EXPORT int name(int c) {                                                                     \
    SELFSCHED_NEXT(name);                                                                                \
    return straight_to_descriptor(stdout) ? put_straight(c, stdout) : real(c);                          \
  }

namespace {
int put_straight(int c, FILE* stream) {
  const char byte = static_cast<char>(c);
  return write_all(stream, &byte, 1) ? static_cast<unsigned char>(c) : EOF;
}
}  // namespace

extern "C" int _IO_putc(int, FILE*);  // putc's older name, which the C library still exports

SELFSCHED_FPUTS(fputs)
SELFSCHED_FPUTS(fputs_unlocked)
SELFSCHED_FWRITE(fwrite)
SELFSCHED_FWRITE(fwrite_unlocked)
SELFSCHED_PUTC(fputc)
SELFSCHED_PUTC(putc)
SELFSCHED_PUTC(_IO_putc)
SELFSCHED_PUTC(fputc_unlocked)
SELFSCHED_PUTC(putc_unlocked)
SELFSCHED_PUTCHAR(putchar)
SELFSCHED_PUTCHAR(putchar_unlocked)

SELFSCHED_EXPORT int puts(const char* text) {
  SELFSCHED_NEXT(puts);
  if (!straight_to_descriptor(stdout)) return real(text);
  // One write for the line and its end, as the stream would flush it.
  const std::size_t size = std::strlen(text);
  char line[1024];
  if (size + 1 <= sizeof line) {
    std::memcpy(line, text, size);
    line[size] = '\n';
    return write_all(stdout, line, size + 1) ? 1 : EOF;
  }
  return write_all(stdout, text, size) && write_all(stdout, "\n", 1) ? 1 : EOF;
}
