// The SELFSCHED_MPI_* variables, in one table (settings.cpp) built like
// omp_ext's: name, default, parser, one-line doc; read once; an invalid value
// is reported once by name and value, and the default is used instead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace selfsched::mpi::detail {

enum class transport_kind { master, rma, hier };
enum class progress_kind { automatic, thread, inline_ };
enum class pool_strategy { central, mediation, receiver, sender, hier_mediation };
enum class writes_kind { off, warn, merge };

struct settings {
  std::string schedule = "fss";                      // SELFSCHED_MPI_SCHEDULE: outer technique
  transport_kind transport = transport_kind::master; // SELFSCHED_MPI_TRANSPORT
  progress_kind progress = progress_kind::automatic; // SELFSCHED_MPI_PROGRESS
  double prefetch = 0.15;                            // SELFSCHED_MPI_PREFETCH
  std::int64_t node_size = 0;                        // SELFSCHED_MPI_NODE_SIZE (0: shared-memory node)
  bool load = true;                                  // SELFSCHED_MPI_LOAD
  bool stats = false;                                // SELFSCHED_MPI_STATS
  bool duplicate = false;                            // SELFSCHED_MPI_RESILIENCE=duplicate
  double wait_limit = 60;                            // SELFSCHED_MPI_WAIT_LIMIT (s; 0: for ever)
  pool_strategy strategy = pool_strategy::central;   // SELFSCHED_POOL_STRATEGY
  bool pool_by_threshold = false;                    // SELFSCHED_POOL_TRANSFER=threshold
  bool cluster = false;                              // SELFSCHED_CLUSTER
  double early_writes_ms = 50;                       // SELFSCHED_CLUSTER_EARLY_WRITES (ms; < 0: off)
  writes_kind writes = writes_kind::warn;            // SELFSCHED_MPI_WRITES
};

// Read once. `report`: print the warnings for invalid values (rank 0 does;
// its values are the ones every rank uses).
const settings& current_settings(bool report);

// SELFSCHED_DISPLAY_ENV: the table with the effective values.
void display_settings();

const char* transport_name(transport_kind t);
// A transport by name: "" or "valid: master, rma, hier".
std::string parse_transport(std::string_view name, transport_kind& out);

// A task pool strategy by name: "" or "valid: ...".
std::string parse_pool_strategy(std::string_view name, pool_strategy& out);
const char* strategy_name(pool_strategy s);
// "priority" -> false, "threshold" -> true: "" or "valid: ...".
std::string parse_pool_transfer(std::string_view name, bool& by_threshold);

}  // namespace selfsched::mpi::detail
