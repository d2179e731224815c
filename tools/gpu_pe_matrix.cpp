// gpu_pe_matrix: the alltoall of P PEs in one process on one GPU
// (runtime/cuda/cuda_pe_group.hpp) over P, the size a peer and who moves a
// put: in the direct flavour the width that copies it (thread, warp, block,
// or auto: NVSHMEM's choice by size), or the engine block fed by the PEs'
// posting threads (engine) or by their CPU proxies (proxy), or the CPU
// proxies' own cudaMemcpyAsync and signal add (copy). Each point: the
// bytes written, one exchange checked (every byte of every slot, every signal
// word), then `iterations` exchanges timed and checked again; the medians of
// the exchange between events, its span on the GPU's timer and a block's
// posting (direct; engine and proxy: PE's poster 0 posting its requests or
// commands), and the bytes stored per second (P (P − 1) n over the exchange:
// what the PEs together take of HBM). A P the GPU cannot hold at once is
// reported with the reason and skipped. Writes JSON (--json) for
// tools/gpu-check.sh.
//
// usage: gpu_pe_matrix [--pes 2,4,8,16,32] [--sizes 8,4KiB,64KiB,1MiB]
//                      [--widths thread,warp,block,auto,engine,proxy,copy]
//                      [--posters 0] [--batch 4] [--iterations 20] [--json FILE]
// --posters N: the engine flavours' posting threads a PE, at most P − 1
// (0, the default: a thread a put); --batch B: the engine flavour's
// doorbell batch (1 to the queue's 64 entries).
// Exit status: 0 all points right, 1 an error in a point, 2 bad use or no GPU.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/backends.hpp"
#include "runtime/cuda/cuda_pe_group.hpp"

namespace xover::runtime {
namespace {

struct Options {
  std::vector<std::uint32_t> pes{2, 4, 8, 16, 32};
  std::vector<Bytes> sizes{8, 4096, 65536, 1 << 20};
  std::vector<std::string> widths{"thread", "warp", "block", "auto", "engine", "proxy", "copy"};
  std::uint32_t posters = 0;
  std::uint32_t batch = kPeDoorbellBatch;
  int iterations = 20;
  std::string json;
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    out.push_back(item);
  return out;
}

/// `text` as a whole number, for `flag`.
std::uint32_t number(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  unsigned long value = 0;
  try {
    value = std::stoul(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value > 1'000'000)
    throw std::invalid_argument(flag + ": '" + text + "' is not a whole number");
  return static_cast<std::uint32_t>(value);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc)
      throw std::invalid_argument(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--pes") {
      o.pes.clear();
      for (const std::string& p : split(value))
        o.pes.push_back(number(flag, p));
    } else if (flag == "--sizes") {
      o.sizes.clear();
      for (const std::string& s : split(value))
        o.sizes.push_back(parse_size(s));
    } else if (flag == "--widths") {
      o.widths = split(value);
      for (const std::string& w : o.widths) {
        DirectWidth unused{};
        PeFlavour flavour{};
        if (w != "auto" && !parse_width(w, unused) && (!parse_flavour(w, flavour) || flavour == PeFlavour::Direct))
          throw std::invalid_argument("--widths: '" + w + "' is not thread, warp, block, auto, engine, proxy or copy");
      }
    } else if (flag == "--posters") {
      o.posters = number(flag, value);
    } else if (flag == "--batch") {
      o.batch = number(flag, value);
      if (o.batch < 1 || o.batch > kPeQueueEntries)
        throw std::invalid_argument("--batch: 1 to " + std::to_string(kPeQueueEntries));
    } else if (flag == "--iterations") {
      o.iterations = static_cast<int>(number(flag, value));
      if (o.iterations < 1)
        throw std::invalid_argument("--iterations: at least 1");
    } else if (flag == "--json") {
      o.json = value;
    } else {
      throw std::invalid_argument("unknown option " + flag);
    }
  }
  return o;
}

double median_us(std::vector<Seconds> values) {
  if (values.empty())
    return 0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2] * 1e6;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text)
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (static_cast<unsigned char>(c) >= 0x20)
      out += c;
  return out + "\"";
}

/// The engine flavours' posting threads a PE and doorbell batch.
struct Posting {
  std::uint32_t posters = 0;
  std::uint32_t batch = 0;
};

/// One point: its JSON object; `errors` counts the wrong puts and signals.
std::string run_point(CudaPeGroup& group, std::uint32_t pes, Bytes n, const std::string& name, Posting posting,
                      int iterations, std::size_t& errors) {
  PeFlavour flavour = PeFlavour::Direct;
  DirectWidth width{};
  if (!parse_flavour(name, flavour) && !parse_width(name, width))
    width = nvshmem_width(n);
  const std::string copied_by = flavour == PeFlavour::Direct ? std::string(width_name(width))
                                : flavour == PeFlavour::Copy   ? "cudaMemcpyAsync"
                                                               : "engine warp";
  std::vector<Seconds> time, span, post;
  std::vector<std::string> problems;
  group.prepare(n);
  for (int i = 0; i <= iterations && problems.empty(); ++i) {
    const PeGroupExchange x = group.exchange(flavour, width, n, 10.0);
    if (!x.complete) {
      problems.push_back(x.problem);
      break;
    }
    if (i > 0) {  // the first is the warm-up
      time.push_back(x.time);
      span.push_back(x.span);
      post.insert(post.end(), x.post.begin(), x.post.end());
    }
    if (i == 0 || i == iterations)
      for (const std::string& p : group.verify(n).problems)
        problems.push_back(p);
  }
  errors += problems.size();
  // Bytes stored into the heap per exchange over its median time: HBM's
  // share for P PEs (each byte also read once).
  const double stored_gbps =
      time.empty() ? 0 : static_cast<double>(Bytes{pes} * (pes - 1) * n) / (median_us(time) * 1e-6) / 1e9;
  std::ostringstream os;
  os << "{\"pes\": " << pes << ", \"size\": " << n << ", \"width\": " << quoted(name) << ", \"flavour\": "
     << quoted(std::string(flavour_name(flavour))) << ", \"copied_by\": " << quoted(copied_by)
     << ", \"posters\": " << (flavour == PeFlavour::Direct ? 0 : posting.posters)
     << ", \"batch\": " << (flavour == PeFlavour::Engine ? posting.batch : 0)
     << ", \"blocks_per_pe\": " << group.launch().blocks_per_pe
     << ", \"threads\": " << group.launch().threads << ", \"exchanges\": " << time.size()
     << ", \"time_us\": " << median_us(time) << ", \"span_us\": " << median_us(span)
     << ", \"post_us\": " << median_us(post) << ", \"stored_gbps\": " << stored_gbps
     << ", \"errors\": " << problems.size() << ", \"problems\": [";
  for (std::size_t i = 0; i < problems.size() && i < 4; ++i)
    os << (i ? ", " : "") << quoted(problems[i]);
  os << "]}";
  std::cout << "P " << pes << " " << n << " B " << name << " (" << copied_by << "): "
            << median_us(time) << " us, span " << median_us(span) << " us, a block's posting " << median_us(post)
            << " us, " << stored_gbps << " GB/s stored, " << problems.size() << " errors\n";
  return os.str();
}

int run(const Options& o) {
  std::vector<std::string> points;
  std::vector<std::string> refused;
  std::size_t errors = 0;
  const Bytes max_size = *std::max_element(o.sizes.begin(), o.sizes.end());
  for (std::uint32_t pes : o.pes) {
    try {
      CudaPeGroup group(pes, max_size, 27);
      const Posting posting{o.posters == 0 ? pes - 1 : std::min(o.posters, pes - 1), o.batch};
      group.set_posting(posting.posters, posting.batch);
      for (Bytes n : o.sizes)
        for (const std::string& w : o.widths)
          points.push_back(run_point(group, pes, n, w, posting, o.iterations, errors));
    } catch (const std::invalid_argument& e) {
      std::cout << "P " << pes << ": " << e.what() << "\n";
      refused.push_back("{\"pes\": " + std::to_string(pes) + ", \"why\": " + quoted(e.what()) + "}");
    }
  }
  if (!o.json.empty()) {
    std::ofstream out(o.json);
    out << "{\"points\": [\n";
    for (std::size_t i = 0; i < points.size(); ++i)
      out << "  " << points[i] << (i + 1 < points.size() ? ",\n" : "\n");
    out << "], \"refused\": [";
    for (std::size_t i = 0; i < refused.size(); ++i)
      out << (i ? ", " : "") << refused[i];
    out << "]}\n";
    if (!out)
      throw std::runtime_error("cannot write " + o.json);
  }
  return errors == 0 ? 0 : 1;
}

}  // namespace
}  // namespace xover::runtime

int main(int argc, char** argv) {
  using namespace xover::runtime;
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "gpu_pe_matrix: " << e.what() << "\n";
    return 2;
  }
  if (const std::string why = find_backend("cuda")->unavailable(); !why.empty()) {
    std::cerr << "gpu_pe_matrix: backend cuda: " << why << "\n";
    return 2;
  }
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::cerr << "gpu_pe_matrix: " << e.what() << "\n";
    return 1;
  }
}
