#include "Progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace rotor::detail {
namespace {

constexpr std::int64_t k_first_draw_ns = 500'000'000; ///< loops shorter than this draw nothing
constexpr std::int64_t k_redraw_ns = 100'000'000;     ///< at most 10 redraws a second
constexpr int k_bar_width = 24;

} // namespace

std::string short_count(double v) {
  char buf[32];
  if (v >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.2fG", v / 1e9);
  } else if (v >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
  } else if (v >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  }
  return buf;
}

void ProgressBar::enable(bool on) {
  enabled_ = on;
  first_draw_ns_ = k_first_draw_ns;
  if (const char* v = std::getenv("ROTOR_PROGRESS_AFTER"); v && *v) { // tests: seconds
    first_draw_ns_ = static_cast<std::int64_t>(std::atof(v) * 1e9);
  }
}

void ProgressBar::begin(std::string title, std::uint64_t local_total, int scale) {
  if (!enabled_) {
    return;
  }
  title_ = std::move(title);
  scale_ = scale < 1 ? 1 : scale;
  start_ = Clock::now();
  total_.store(local_total);
  done_.store(0);
  next_draw_ns_.store(first_draw_ns_);
  drawn_.store(false);
  running_ = true;
}

void ProgressBar::add(std::uint64_t n) {
  if (!running_) {
    return;
  }
  done_.fetch_add(n, std::memory_order_relaxed);
  const Clock::time_point now = Clock::now();
  const std::int64_t at =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - start_).count();
  if (at < next_draw_ns_.load(std::memory_order_relaxed) ||
      drawing_.exchange(true, std::memory_order_acquire)) {
    return;
  }
  next_draw_ns_.store(at + k_redraw_ns, std::memory_order_relaxed);
  draw(now);
  drawing_.store(false, std::memory_order_release);
}

void ProgressBar::draw(Clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double done = static_cast<double>(done_.load(std::memory_order_relaxed));
  const double total = static_cast<double>(total_.load(std::memory_order_relaxed));
  const double frac = total > 0 ? std::min(1.0, done / total) : 0.0;
  const int filled = static_cast<int>(std::lround(frac * k_bar_width));
  char bar[k_bar_width + 1];
  for (int i = 0; i < k_bar_width; ++i) {
    bar[i] = i < filled ? '#' : '.';
  }
  bar[k_bar_width] = '\0';
  const double rate = elapsed > 0 ? done * scale_ / elapsed : 0.0;
  const double eta = done > 0 ? elapsed * (total - done) / done : 0.0;
  std::fprintf(stderr, "\r%s [%s] %3.0f%% %s%s/%s records %s/s ETA %.0fs\033[K", title_.c_str(),
               bar, 100 * frac, scale_ > 1 ? "~" : "", short_count(done * scale_).c_str(),
               short_count(total * scale_).c_str(), short_count(rate).c_str(), eta);
  std::fflush(stderr);
  drawn_.store(true, std::memory_order_relaxed);
}

void ProgressBar::end() {
  if (!running_) {
    return;
  }
  running_ = false;
  while (drawing_.load(std::memory_order_acquire)) {
  }
  if (drawn_.load()) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

} // namespace rotor::detail
