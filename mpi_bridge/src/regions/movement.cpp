#include "regions/movement.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <vector>

#include "common/fatal.hpp"

namespace selfsched::mpi::detail {
namespace {

constexpr int tag_rows = 16;  // apart from the scheduling tags (protocol.hpp)

// Everyone's chunk lists, on the ranks that receive rows (root, or all).
std::vector<std::vector<chunk>> chunk_lists(MPI_Comm comm, int root, std::span<const chunk> own) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (own.size() > INT_MAX / 2) abort_job(comm, "too many outer chunks on one rank to gather rows");
  const int mine = static_cast<int>(2 * own.size());  // start, size
  std::vector<int> counts(static_cast<std::size_t>(size)), displacements(static_cast<std::size_t>(size));
  if (root == all_ranks) MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  else MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm);
  long long total = 0;
  for (int j = 0; j < size; ++j) displacements[j] = static_cast<int>(total), total += counts[j];
  if (total > INT_MAX) abort_job(comm, "too many outer chunks to gather rows");
  std::vector<std::int64_t> all(static_cast<std::size_t>(total));
  static_assert(sizeof(chunk) == 2 * sizeof(std::int64_t));
  const void* send = own.data();
  if (root == all_ranks)
    MPI_Allgatherv(send, mine, MPI_INT64_T, all.data(), counts.data(), displacements.data(), MPI_INT64_T, comm);
  else
    MPI_Gatherv(send, mine, MPI_INT64_T, all.data(), counts.data(), displacements.data(), MPI_INT64_T, root, comm);
  std::vector<std::vector<chunk>> lists(static_cast<std::size_t>(size));
  if (root != all_ranks && rank != root) return lists;
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < counts[j]; k += 2)
      lists[j].push_back({all[static_cast<std::size_t>(displacements[j] + k)],
                          all[static_cast<std::size_t>(displacements[j] + k + 1)]});
  return lists;
}

// The rows of `chunks` in the array, as one datatype (no copy).
MPI_Datatype rows_type(std::span<const chunk> chunks, MPI_Datatype row, std::size_t row_bytes) {
  std::vector<int> lengths;
  std::vector<MPI_Aint> offsets;
  for (const chunk c : chunks)
    for (iter_t done = 0; done < c.size;) {  // blocks of at most INT_MAX rows
      const iter_t block = std::min<iter_t>(c.size - done, INT_MAX);
      lengths.push_back(static_cast<int>(block));
      offsets.push_back(static_cast<MPI_Aint>((c.start + done) * static_cast<iter_t>(row_bytes)));
      done += block;
    }
  MPI_Datatype type;
  MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), offsets.data(), row, &type);
  MPI_Type_commit(&type);
  return type;
}

}  // namespace

std::vector<chunk> settle_copies(MPI_Comm comm, std::span<const chunk> own) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::vector<std::vector<chunk>> lists = chunk_lists(comm, all_ranks, own);
  std::map<iter_t, int> first_holder;  // chunk start -> lowest rank that ran it
  for (int j = static_cast<int>(lists.size()) - 1; j >= 0; --j)
    for (const chunk c : lists[static_cast<std::size_t>(j)]) first_holder[c.start] = j;
  std::vector<chunk> settled;
  for (const chunk c : own)
    if (first_holder[c.start] == rank) settled.push_back(c);
  return settled;
}

void gather_fixed_rows(MPI_Comm comm, const options::fixed_rows& rows, std::span<const chunk> own) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::vector<std::vector<chunk>> lists = chunk_lists(comm, rows.root, own);
  MPI_Datatype row;
  MPI_Type_contiguous(static_cast<int>(rows.row_bytes), MPI_BYTE, &row);
  MPI_Type_commit(&row);
  std::vector<MPI_Request> requests;
  std::vector<MPI_Datatype> types;
  const bool receiver = rows.root == all_ranks || rows.root == rank;
  if (receiver)
    for (int j = 0; j < size; ++j) {
      if (j == rank || lists[j].empty()) continue;
      types.push_back(rows_type(lists[j], row, rows.row_bytes));
      MPI_Irecv(rows.rows, 1, types.back(), j, tag_rows, comm, &requests.emplace_back());
    }
  if (!own.empty()) {
    types.push_back(rows_type(own, row, rows.row_bytes));
    const MPI_Datatype mine = types.back();
    for (int j = 0; j < size; ++j)
      if (j != rank && (rows.root == all_ranks || rows.root == j))
        MPI_Isend(rows.rows, 1, mine, j, tag_rows, comm, &requests.emplace_back());
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  for (MPI_Datatype& t : types) MPI_Type_free(&t);
  MPI_Type_free(&row);
}

// Packed as (i, byte count, bytes) per row, gathered, unpacked by store().
void gather_variable_rows(MPI_Comm comm, const options::variable_rows& rows, std::span<const chunk> own) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<std::byte> packed;
  for (const chunk c : own)
    for (iter_t i = c.start; i < c.start + c.size; ++i) {
      const std::span<const std::byte> bytes = rows.row(i);
      const std::int64_t header[2] = {i, static_cast<std::int64_t>(bytes.size())};
      const std::size_t at = packed.size();
      packed.resize(at + sizeof header + bytes.size());
      std::memcpy(packed.data() + at, header, sizeof header);
      if (!bytes.empty()) std::memcpy(packed.data() + at + sizeof header, bytes.data(), bytes.size());
    }
  if (packed.size() > INT_MAX) abort_job(comm, "more than 2 GB of variable-size rows on one rank");
  const int mine = static_cast<int>(packed.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displacements(static_cast<std::size_t>(size));
  if (rows.root == all_ranks) MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  else MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, rows.root, comm);
  long long total = 0;
  for (int j = 0; j < size; ++j) displacements[j] = static_cast<int>(total), total += counts[j];
  const bool receiver = rows.root == all_ranks || rows.root == rank;
  if (receiver && total > INT_MAX) abort_job(comm, "more than 2 GB of variable-size rows to gather");
  std::vector<std::byte> all(receiver ? static_cast<std::size_t>(total) : 0);
  if (rows.root == all_ranks)
    MPI_Allgatherv(packed.data(), mine, MPI_BYTE, all.data(), counts.data(), displacements.data(), MPI_BYTE, comm);
  else
    MPI_Gatherv(packed.data(), mine, MPI_BYTE, all.data(), counts.data(), displacements.data(), MPI_BYTE,
                rows.root, comm);
  if (!receiver) return;
  for (int j = 0; j < size; ++j) {
    if (j == rank) continue;
    for (std::size_t at = displacements[j], end = at + counts[j]; at < end;) {
      std::int64_t header[2];
      std::memcpy(header, all.data() + at, sizeof header);
      at += sizeof header;
      rows.store(header[0], {all.data() + at, static_cast<std::size_t>(header[1])});
      at += static_cast<std::size_t>(header[1]);
    }
  }
}

void reduce(MPI_Comm comm, const options::reduction& r) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (r.root == all_ranks) MPI_Allreduce(MPI_IN_PLACE, r.buffer, r.count, r.type, r.op, comm);
  else MPI_Reduce(rank == r.root ? MPI_IN_PLACE : r.buffer, r.buffer, r.count, r.type, r.op, r.root, comm);
}

// Bytes beyond what one MPI call takes go in pieces of 1 GiB.
constexpr std::size_t piece = std::size_t{1} << 30;

void gather_cells(MPI_Comm comm, const wavefront_plan& plan, const wavefront_call& call, std::span<const chunk> own,
                  int root) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::vector<std::vector<chunk>> lists = chunk_lists(comm, root, own);
  const iter_t rows = plan.extents[plan.sync_dim];
  const auto each_cell = [&](std::span<const chunk> chunks, auto&& visit) {  // in one order on every rank
    for (const chunk c : chunks)
      for_each_iteration(plan, c, 0, rows, [&](const iter_t* at) { visit(call.cell(call.context, at)); });
  };
  for (int r = 0; r < size; ++r) {
    const bool receives = root == all_ranks ? rank != r : rank == root && r != root;
    if (rank != r && !receives) continue;
    if (root != all_ranks && r == root) continue;  // the root keeps its own
    const std::span<const chunk> chunks = rank == r ? own : std::span<const chunk>(lists[static_cast<std::size_t>(r)]);
    iter_t cells = 0;
    for (const chunk c : chunks) cells += plan.iterations(c);
    std::vector<std::byte> bytes(static_cast<std::size_t>(cells) * call.cell_bytes);
    std::byte* at = bytes.data();
    if (rank == r) each_cell(chunks, [&](const void* cell) { std::memcpy(at, cell, call.cell_bytes), at += call.cell_bytes; });
    for (std::size_t done = 0; done < bytes.size(); done += piece) {
      const int count = static_cast<int>(std::min(piece, bytes.size() - done));
      if (root == all_ranks) MPI_Bcast(bytes.data() + done, count, MPI_BYTE, r, comm);
      else if (rank == r) MPI_Send(bytes.data() + done, count, MPI_BYTE, root, tag_rows, comm);
      else MPI_Recv(bytes.data() + done, count, MPI_BYTE, r, tag_rows, comm, MPI_STATUS_IGNORE);
    }
    const std::byte* from = bytes.data();
    if (rank != r) each_cell(chunks, [&](void* cell) { std::memcpy(cell, from, call.cell_bytes), from += call.cell_bytes; });
  }
}

}  // namespace selfsched::mpi::detail
