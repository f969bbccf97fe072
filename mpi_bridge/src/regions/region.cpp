// The public face: options, region, and the C API over them.
#include <climits>
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "regions/engine.hpp"
#include "selfsched/mpi.hpp"
#include "selfsched/mpi_wavefront.hpp"
#include "selfsched_mpi.h"

namespace selfsched::mpi {
namespace {

void check_root(int root, const char* what) {
  if (root < all_ranks)
    throw std::invalid_argument(std::string("selfsched::mpi::options::") + what + ": root " + std::to_string(root) +
                                " is not a rank (>= 0) or all_ranks (-1)");
}

}  // namespace

options& options::gather_rows(void* rows, std::size_t row_bytes, int root) {
  check_root(root, "gather_rows");
  if (rows == nullptr) throw std::invalid_argument("selfsched::mpi::options::gather_rows: rows is null");
  if (row_bytes == 0 || row_bytes > INT_MAX)
    throw std::invalid_argument("selfsched::mpi::options::gather_rows: row size " + std::to_string(row_bytes) +
                                " bytes is not in 1 .. 2147483647");
  fixed_.push_back({rows, row_bytes, root});
  return *this;
}

options& options::gather_rows(row_reader row, row_writer store, int root) {
  check_root(root, "gather_rows");
  if (!row || !store) throw std::invalid_argument("selfsched::mpi::options::gather_rows: empty row reader or writer");
  variable_.push_back({std::move(row), std::move(store), root});
  return *this;
}

options& options::reduce(void* buffer, int count, MPI_Datatype type, MPI_Op op, int root, when at) {
  check_root(root, "reduce");
  if (count < 0 || (count > 0 && buffer == nullptr))
    throw std::invalid_argument("selfsched::mpi::options::reduce: " + std::to_string(count) +
                                " elements at a null buffer, or a negative count");
  reductions_.push_back({buffer, count, type, op, root, at});
  return *this;
}

options& options::after_loop(std::function<void(const loop_info&)> callback) {
  if (!callback) throw std::invalid_argument("selfsched::mpi::options::after_loop: empty callback");
  callbacks_.push_back(std::move(callback));
  return *this;
}

options& options::merge_writes() {
  merge_writes_ = true;
  return *this;
}

options& options::track_writes(void* data, std::size_t bytes) {
  if (data == nullptr || bytes == 0)
    throw std::invalid_argument("selfsched::mpi::options::track_writes: " + std::to_string(bytes) + " bytes at " +
                                (data == nullptr ? "a null pointer" : "a valid pointer") +
                                "; give a non-null pointer and at least one byte");
  tracked_.push_back({data, bytes});
  return *this;
}

options& options::schedule(std::string technique) {
  schedule_ = std::move(technique);
  return *this;
}

options& options::transport(std::string name) {
  transport_ = std::move(name);
  return *this;
}

region::region(MPI_Comm comm, options opts) : engine_(std::make_unique<detail::engine>(comm, std::move(opts))) {}
region::~region() = default;
statistics region::stats() const { return engine_->stats(); }
std::vector<double> region::rank_weights() const { return engine_->weights(); }

}  // namespace selfsched::mpi

// ------------------------------------------------------------------ C API

struct selfsched_mpi_options {
  selfsched::mpi::options cpp;
};
struct selfsched_mpi_region {
  selfsched::mpi::region cpp;
};

namespace {

template <typename F>
int c_call(F&& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return -1;
  }
}

}  // namespace

extern "C" {

selfsched_mpi_options* selfsched_mpi_options_new(void) { return new selfsched_mpi_options; }
void selfsched_mpi_options_free(selfsched_mpi_options* options) { delete options; }

int selfsched_mpi_gather_rows(selfsched_mpi_options* options, void* rows, size_t row_bytes, int root) {
  return c_call([&] { options->cpp.gather_rows(rows, row_bytes, root); });
}

int selfsched_mpi_gather_variable_rows(selfsched_mpi_options* options,
                                       const void* (*row)(int64_t i, size_t* size, void* user),
                                       void (*store)(int64_t i, const void* bytes, size_t size, void* user),
                                       void* user, int root) {
  if (row == nullptr || store == nullptr) {
    std::fprintf(stderr, "selfsched_mpi_gather_variable_rows: row and store must not be NULL\n");
    return -1;
  }
  return c_call([&] {
    options->cpp.gather_rows(
        [row, user](selfsched::iter_t i) {
          std::size_t size = 0;
          const void* bytes = row(i, &size, user);
          return std::span<const std::byte>(static_cast<const std::byte*>(bytes), size);
        },
        [store, user](selfsched::iter_t i, std::span<const std::byte> bytes) {
          store(i, bytes.data(), bytes.size(), user);
        },
        root);
  });
}

int selfsched_mpi_reduce(selfsched_mpi_options* options, void* buffer, int count, MPI_Datatype type, MPI_Op op,
                         int root, int at_region_end) {
  using selfsched::mpi::when;
  return c_call([&] { options->cpp.reduce(buffer, count, type, op, root, at_region_end ? when::region_end : when::each_loop); });
}

int selfsched_mpi_after_loop(selfsched_mpi_options* options,
                             void (*callback)(const selfsched_mpi_loop_info* info, void* user), void* user) {
  if (callback == nullptr) {
    std::fprintf(stderr, "selfsched_mpi_after_loop: callback must not be NULL\n");
    return -1;
  }
  return c_call([&] {
    options->cpp.after_loop([callback, user](const selfsched::mpi::loop_info& info) {
      const selfsched_mpi_loop_info c{info.comm, info.index, info.n,
                                      reinterpret_cast<const int64_t*>(info.own.data()), info.own.size()};
      callback(&c, user);
    });
  });
}

int selfsched_mpi_merge_writes(selfsched_mpi_options* options) {
  return c_call([&] { options->cpp.merge_writes(); });
}

int selfsched_mpi_track_writes(selfsched_mpi_options* options, void* data, size_t bytes) {
  return c_call([&] { options->cpp.track_writes(data, bytes); });
}

int selfsched_mpi_set_schedule(selfsched_mpi_options* options, const char* technique) {
  return c_call([&] { options->cpp.schedule(technique ? technique : ""); });
}

int selfsched_mpi_set_transport(selfsched_mpi_options* options, const char* transport) {
  return c_call([&] { options->cpp.transport(transport ? transport : ""); });
}

selfsched_mpi_region* selfsched_mpi_region_begin(MPI_Comm comm, const selfsched_mpi_options* options) {
  try {
    return new selfsched_mpi_region{selfsched::mpi::region(comm, options ? options->cpp : selfsched::mpi::options{})};
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return nullptr;
  }
}

int selfsched_mpi_region_end(selfsched_mpi_region* region) {
  delete region;
  return 0;
}

int selfsched_mpi_wavefront(selfsched_mpi_region* region, int rank, const int64_t* extents,
                            const int64_t* dependences, int dependence_count,
                            const selfsched_wavefront_options* options, selfsched_wavefront_run run,
                            void* (*cell)(void* context, const int64_t* index), size_t cell_bytes, void* context,
                            int gather, selfsched_wavefront_report* report) {
  // The same answer on every rank: all pass the same arguments.
  if (region == nullptr || extents == nullptr || run == nullptr || cell == nullptr ||
      (dependence_count > 0 && dependences == nullptr)) {
    std::fprintf(stderr, "selfsched_mpi_wavefront: region, extents, run, cell and (when dependence_count > 0) "
                         "dependences must not be NULL\n");
    return -1;
  }
  selfsched::wavefront_options o;
  if (options != nullptr) {
    o.technique = options->technique != nullptr ? options->technique : "";
    o.sync_points = options->sync_points;
    o.chunk_dim = options->chunk_dim;
    o.sync_dim = options->sync_dim;
    o.threads = options->threads;
    o.min_chunk = options->min_chunk;
    o.max_chunk = options->max_chunk;
  }
  selfsched::mpi::detail::wavefront_call call;
  call.rank = rank;
  call.extents = extents;
  call.dependences = dependences;
  call.dependence_count = dependence_count;
  call.options = &o;
  call.run = run;
  call.cell = cell;
  call.failure = [](void*) { return "its run callback returned non-zero"; };
  call.context = context;
  call.cell_bytes = cell_bytes;
  call.gather = gather;
  try {
    const selfsched::mpi::wavefront_report r = selfsched::mpi::detail::run_wavefront(region->cpp, call);
    if (report != nullptr) {
      selfsched_wavefront_chunk* log = report->chunk_log;
      const int64_t capacity = report->chunk_log_capacity;
      *report = r.threads;
      report->chunk_log = log;  // no chunk log across ranks
      report->chunk_log_capacity = capacity;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return -1;
  }
}

}  // extern "C"
