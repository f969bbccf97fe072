#include "stream_buffers.hpp"

#include <sys/stat.h>

#include <mutex>
#include <string>
#include <unordered_map>

#include "allocation.hpp"
#include "file_change.hpp"
#include "interposed.hpp"
#include "private_view.hpp"

namespace selfsched::cluster {
namespace {

std::mutex lock;
std::unordered_map<FILE*, void*>* buffers = nullptr;  // the runtime's memory

// What the C library would choose for the real file: its block size, at
// most BUFSIZ; the real directory's when the file is not there (a rank
// other than 0 may be ahead of rank 0 in replicated code).
std::size_t real_buffer_size(const char* path) {
  own_work_scope scope;  // the real path, not this rank's view of it
  struct stat st{};
  if (stat(path, &st) != 0) {
    const std::string name = path;
    const std::size_t slash = name.rfind('/');
    if (stat(slash == std::string::npos ? "." : slash == 0 ? "/" : name.substr(0, slash).c_str(), &st) != 0) return BUFSIZ;
  }
  return st.st_blksize > 0 && st.st_blksize < BUFSIZ ? static_cast<std::size_t>(st.st_blksize) : BUFSIZ;
}

void remember(FILE* stream, void* buffer) {
  runtime_scope scope;
  std::lock_guard<std::mutex> hold(lock);
  if (buffers == nullptr) buffers = new std::unordered_map<FILE*, void*>;
  (*buffers)[stream] = buffer;
}

bool is_regular_file(FILE* stream) {
  struct stat st{};
  return fstat(fileno(stream), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

void give_stream_buffer(FILE* stream, const char* path) {
  cluster_process* p = cluster_process::get();
  if (stream == nullptr || p == nullptr || p->ranks() == 1 || !in_serial_code(*p) || !is_regular_file(stream)) return;
  const std::size_t size = real_buffer_size(path);
  void* buffer = p->heap().allocate(size, 16, 0, false);  // the serial arena: the program's stream
  if (buffer == nullptr) return;
  if (setvbuf(stream, static_cast<char*>(buffer), _IOFBF, size) != 0) {
    free(buffer);
    return;
  }
  remember(stream, buffer);
}

void drop_stream_buffer(FILE* stream) {
  void* buffer = nullptr;
  {
    std::lock_guard<std::mutex> hold(lock);
    if (buffers == nullptr) return;
    const auto it = buffers->find(stream);
    if (it == buffers->end()) return;
    buffer = it->second;
    buffers->erase(it);
  }
  free(buffer);  // the program's heap: free knows by the address
}

}  // namespace selfsched::cluster

using namespace selfsched::cluster;

extern "C" __attribute__((visibility("default"))) int fclose(FILE* stream) {
  SELFSCHED_NEXT(fclose);
  const int result = real(stream);
  if (cluster_process::get() != nullptr) drop_stream_buffer(stream);
  return result;
}
