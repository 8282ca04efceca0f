// SPDX-License-Identifier: Apache-2.0
// A local engine with a known law, for measuring the measurer: an HTTP/1.1 server on
// 127.0.0.1 that speaks the OpenAI streaming protocol (POST /v1/completions and
// /v1/chat/completions, server-sent events, a usage chunk, "data: [DONE]") and serves in wall
// time like a queue whose answer the library has in closed form: `slots` requests at once,
// the rest waiting first come first served; each request's service time exponential (M/M/c)
// or constant (M/D/c) with the stated mean; its first token at the start of service, the
// others every `token_interval` until the service time ends. It can also misbehave on
// purpose (stall, close early, malformed events, a 10 MB line, 429 or 500). One thread per
// connection; stops and joins everything it started in its destructor.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace headroom::test {

/// How long a request holds its slot.
enum class service_law : std::uint8_t {
  exponential,    ///< exponential service times: the queue is M/M/c
  deterministic,  ///< constant service times: the queue is M/D/c
};

/// What the engine does wrong, on purpose.
enum class misbehaviour : std::uint8_t {
  none,         ///< serves as the law says
  stall,        ///< two tokens, then silence with the connection open
  close_early,  ///< one token, then the connection closed without [DONE]
  malformed,    ///< an event whose data is not JSON
  huge_line,    ///< a 10 MB event line
  status_429,   ///< "429 Too Many Requests" at once
  status_500,   ///< "500 Internal Server Error" at once
};

struct fake_engine_options {
  int slots = 1;  ///< requests served at once, c >= 1
  service_law law = service_law::exponential;
  double mean_service_seconds = 0.01;     ///< the service time's mean, 1/μ
  double token_interval_seconds = 0.002;  ///< between streamed tokens
  misbehaviour mode = misbehaviour::none;
  std::uint64_t seed = 1;
};

class fake_engine {
 public:
  explicit fake_engine(fake_engine_options options) : options_(options), engine_(options.seed) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener_ < 0) throw std::runtime_error("socket");
    const int one = 1;
    setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 4096) != 0)
      throw std::runtime_error("bind/listen on 127.0.0.1");
    socklen_t length = sizeof address;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    free_slots_ = options_.slots;
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  fake_engine(const fake_engine&) = delete;
  fake_engine& operator=(const fake_engine&) = delete;

  ~fake_engine() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    acceptor_.join();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& w : waiting_) w->woken.notify_one();
    }
    std::vector<worker> workers;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      workers.swap(workers_);
    }
    for (auto& w : workers) w.thread.join();
  }

  /// The TCP port it listens on (127.0.0.1).
  [[nodiscard]] int port() const noexcept { return port_; }
  /// Requests served (or refused) so far.
  [[nodiscard]] std::size_t requests() const noexcept { return requests_.load(); }

 private:
  struct worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  void accept_loop() {
    for (;;) {
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (stopping_) return;
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;
      }
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::lock_guard<std::mutex> lock(mutex_);
      // Join the connections that ended, so finished threads do not pile up.
      std::size_t kept = 0;
      for (std::size_t i = 0; i < workers_.size(); ++i) {
        if (workers_[i].done->load()) {
          workers_[i].thread.join();
          continue;
        }
        if (kept != i) workers_[kept] = std::move(workers_[i]);
        ++kept;
      }
      workers_.resize(kept);
      auto done = std::make_shared<std::atomic<bool>>(false);
      workers_.push_back({std::thread([this, fd, done] {
                            serve(fd);
                            done->store(true);
                          }),
                          done});
    }
  }

  // Reads one request (headers and Content-Length body); false if the client went away.
  // `chat`: the request line names /v1/chat/completions.
  bool read_request(int fd, bool& chat) {
    std::string data;
    char buffer[8192];
    std::size_t header_end = std::string::npos, length = 0;
    for (;;) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      data.append(buffer, static_cast<std::size_t>(n));
      if (header_end == std::string::npos) {
        header_end = data.find("\r\n\r\n");
        if (header_end == std::string::npos) continue;
        chat = data.substr(0, data.find("\r\n")).find("/chat/completions") != std::string::npos;
        const auto at = data.find("Content-Length:");
        if (at != std::string::npos) length = std::stoul(data.substr(at + 15, 20));
      }
      if (data.size() >= header_end + 4 + length) return true;
    }
  }

  static bool send_all(int fd, const std::string& text) {
    std::size_t sent = 0;
    while (sent < text.size()) {
      const ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

  // One chunk of the chunked body.
  static bool send_chunk(int fd, const std::string& data) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    return send_all(fd, std::string(size) + data + "\r\n");
  }

  // A streamed token: the completions API's "text", or the chat API's "delta" (whose first
  // event carries the role and no content, as vLLM's does).
  static std::string token_event(std::size_t i, bool chat) {
    if (chat)
      return std::string(i == 0 ? "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion."
                                  "chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":"
                                  "\"assistant\",\"content\":\"\"}}]}\n\n"
                                : "") +
             "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{"
             "\"index\":0,\"delta\":{\"content\":\" t" +
             std::to_string(i) + "\"},\"finish_reason\":null}]}\n\n";
    return "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
           "\"text\":\" t" +
           std::to_string(i) + "\",\"finish_reason\":null}]}\n\n";
  }

  using clock = std::chrono::steady_clock;

  // Waits (first come, first served) for a free slot; its service starts at the returned
  // time (nullopt when stopping). A release hands its slot to the longest waiter, wakes that
  // one only, and the handed-over service starts at the release: the waiter's wake-up latency
  // delays its first token, not the queue's departures.
  std::optional<clock::time_point> take_slot() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (free_slots_ > 0 && waiting_.empty()) {
      --free_slots_;
      return clock::now();
    }
    auto me = std::make_shared<waiter>();
    waiting_.push_back(me);
    me->woken.wait(lock, [&] { return stopping_ || me->granted; });
    if (!me->granted) return std::nullopt;
    return me->granted_at;
  }
  void release_slot(clock::time_point at) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (waiting_.empty()) {
      ++free_slots_;
      return;
    }
    const auto next = waiting_.front();
    waiting_.pop_front();
    next->granted = true;
    next->granted_at = at;
    next->woken.notify_one();
  }
  double draw_service() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (options_.law == service_law::deterministic) return options_.mean_service_seconds;
    std::exponential_distribution<double> exponential(1.0 / options_.mean_service_seconds);
    return exponential(engine_);
  }

  void serve(int fd) {
    bool chat = false;
    if (!read_request(fd, chat)) {
      ::close(fd);
      return;
    }
    ++requests_;
    const std::string ok =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: "
        "chunked\r\nConnection: close\r\n\r\n";
    switch (options_.mode) {
      case misbehaviour::status_429:
      case misbehaviour::status_500: {
        const bool busy = options_.mode == misbehaviour::status_429;
        const std::string body =
            busy ? "{\"error\":{\"message\":\"busy\"}}" : "{\"error\":{\"message\":\"internal\"}}";
        send_all(fd, std::string(busy ? "HTTP/1.1 429 Too Many Requests"
                                      : "HTTP/1.1 500 Internal Server Error") +
                         "\r\nContent-Type: application/json\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
        break;
      }
      case misbehaviour::stall: {
        send_all(fd, ok);
        send_chunk(fd, token_event(0, chat) + token_event(1, chat));
        pollfd p{fd, POLLIN | POLLRDHUP, 0};  // until the client gives up (or 30 s)
        for (int waited = 0; waited < 300 && !stopping_; ++waited)
          if (::poll(&p, 1, 100) > 0) break;
        break;
      }
      case misbehaviour::close_early:
        send_all(fd, ok);
        send_chunk(fd, token_event(0, chat));
        break;
      case misbehaviour::malformed:
        send_all(fd, ok);
        send_chunk(fd, token_event(0, chat) + "data: {\"choices\": [oops\n\n");
        send_chunk(fd, "data: [DONE]\n\n");
        send_all(fd, "0\r\n\r\n");
        break;
      case misbehaviour::huge_line: {
        send_all(fd, ok);
        send_chunk(fd, "data: \"" + std::string(10u << 20, 'x'));
        send_chunk(fd, "\"\n\ndata: [DONE]\n\n");
        send_all(fd, "0\r\n\r\n");
        break;
      }
      case misbehaviour::none: {
        const auto begun = take_slot();
        if (!begun) break;
        const auto start = *begun;
        const double service = draw_service();
        const auto end = start + std::chrono::duration_cast<clock::duration>(
                                     std::chrono::duration<double>(service));
        const auto interval = std::chrono::duration_cast<clock::duration>(
            std::chrono::duration<double>(options_.token_interval_seconds));
        bool alive = send_all(fd, ok) && send_chunk(fd, token_event(0, chat));
        std::size_t tokens = 1;
        for (auto next = start + interval; alive && next < end; next += interval) {
          std::this_thread::sleep_until(next);
          alive = send_chunk(fd, token_event(tokens++, chat));
        }
        std::this_thread::sleep_until(end);
        release_slot(end);  // the slot frees when the service time ends
        if (alive)
          alive = send_chunk(fd,
                             "data: {\"id\":\"cmpl-1\",\"choices\":[],\"usage\":{"
                             "\"prompt_tokens\":8,\"completion_tokens\":" +
                                 std::to_string(tokens) + "}}\n\ndata: [DONE]\n\n") &&
                  send_all(fd, "0\r\n\r\n");
        break;
      }
    }
    ::close(fd);
  }

  fake_engine_options options_;
  std::mt19937_64 engine_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> requests_{0};
  std::thread acceptor_;
  std::mutex mutex_;
  struct waiter {
    std::condition_variable woken;
    bool granted = false;
    clock::time_point granted_at{};
  };
  std::deque<std::shared_ptr<waiter>> waiting_;  // first come, first served
  std::vector<worker> workers_;
  int free_slots_ = 0;
};

}  // namespace headroom::test
