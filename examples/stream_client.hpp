// SPDX-License-Identifier: Apache-2.0
// An open-loop load generator for OpenAI-compatible streaming endpoints on one thread: every
// request is sent at its scheduled time over its own connection (plain HTTP/1.1, non-blocking
// sockets, epoll), its server-sent events read as they arrive. Per request it records the
// intended send, the actual send, the first and every later streamed token, the token counts
// (the server's `usage` chunk when it sends one) and, for a failure, its kind. Not part of
// the library: the example measure_endpoint drives it (docs/capacity.md, "Measuring a real
// endpoint"). Linux (epoll); https is not built in.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <headroom/detail/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace example {

/// Why a request failed. Every failure counts against the SLO; none is dropped.
enum class failure : std::uint8_t {
  none,           ///< it streamed to [DONE] (or to the end of a complete response)
  connect,        ///< the connection was refused or could not be made
  http_status,    ///< the server answered with a status other than 200
  timeout,        ///< no end within the request timeout (a stalled stream, say)
  broken_stream,  ///< the connection closed before the stream's end
  malformed,      ///< a response that is not HTTP, chunked encoding or SSE as specified
  line_too_long,  ///< a header or event line longer than the client's bound
};

/// How many kinds of failure there are (none included): an array indexed by failure.
inline constexpr std::size_t failure_kinds = 7;

/// "none", "connect", "http_status", "timeout", "broken_stream", "malformed", "line_too_long".
inline const char* to_string(failure f) {
  switch (f) {
    case failure::none:
      return "none";
    case failure::connect:
      return "connect";
    case failure::http_status:
      return "http_status";
    case failure::timeout:
      return "timeout";
    case failure::broken_stream:
      return "broken_stream";
    case failure::malformed:
      return "malformed";
    case failure::line_too_long:
      break;
  }
  return "line_too_long";
}

/// Where requests go.
struct endpoint {
  std::string host = "127.0.0.1";        ///< a name or an address
  std::uint16_t port = 8000;             ///< TCP port
  std::string path = "/v1/completions";  ///< /v1/completions or /v1/chat/completions
  bool chat = false;                     ///< the chat API's body and deltas
};

/// Reads http://host[:port][/path] (the path defaults to /v1/completions). https:// and
/// anything else is refused with the reason in `error`.
inline std::optional<endpoint> parse_url(std::string_view url, std::string& error) {
  constexpr std::string_view scheme = "http://";
  if (url.starts_with("https://")) {
    error =
        "https is not built into this client: put a TLS-terminating proxy in front, or "
        "use http://";
    return std::nullopt;
  }
  if (!url.starts_with(scheme)) {
    error = "the URL must start with http://";
    return std::nullopt;
  }
  url.remove_prefix(scheme.size());
  endpoint e;
  const std::size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  if (slash != std::string_view::npos) e.path = std::string(url.substr(slash));
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos) {
    unsigned port = 0;
    const std::string_view digits = authority.substr(colon + 1);
    for (const char c : digits) {
      if (c < '0' || c > '9' || port > 65535) {
        error = "bad port '" + std::string(digits) + "'";
        return std::nullopt;
      }
      port = port * 10 + static_cast<unsigned>(c - '0');
    }
    if (digits.empty() || port == 0 || port > 65535) {
      error = "bad port '" + std::string(digits) + "'";
      return std::nullopt;
    }
    e.port = static_cast<std::uint16_t>(port);
    authority = authority.substr(0, colon);
  }
  if (authority.empty()) {
    error = "the URL has no host";
    return std::nullopt;
  }
  e.host = std::string(authority);
  if (e.path == "/" || e.path.empty()) e.path = "/v1/completions";
  e.chat = e.path.find("chat/completions") != std::string::npos;
  return e;
}

/// One request to send.
struct planned_request {
  double intended_seconds = 0.0;  ///< when to send it, from the run's start
  std::size_t prompt_tokens = 0;  ///< the prompt's length as asked for (a filler's words)
  std::size_t max_tokens = 1;     ///< output tokens asked for
};

/// What happened to one request; times in seconds from the run's start.
struct request_record {
  double intended = 0.0;           ///< the schedule's time
  double sent = 0.0;               ///< when the client started it (connect)
  double first_token = 0.0;        ///< the first streamed token
  double finished = 0.0;           ///< the stream's end (or the failure)
  std::vector<double> token_gaps;  ///< seconds between successive token chunks
  std::size_t prompt_tokens = 0;   ///< usage.prompt_tokens, else what was asked for
  std::size_t output_tokens = 0;   ///< usage.completion_tokens, else the token chunks
  bool usage_seen = false;         ///< the server sent a usage chunk
  failure error = failure::none;   ///< why it failed
  int status = 0;                  ///< the HTTP status (0: none read)
};

/// How a run is driven.
struct client_options {
  std::string model = "model";            ///< the body's "model"
  bool ignore_eos = true;                 ///< the body's "ignore_eos" (vLLM, SGLang)
  double request_timeout_seconds = 60.0;  ///< a request with no end by then fails
  std::size_t max_line_bytes = 1u << 20;  ///< longest header or event line (1 MiB)
  std::size_t max_in_flight = 100000;     ///< connections open at once, at most
  std::string prompt_word = " the";       ///< the filler a prompt repeats
  /// Every request's prompt, when not empty (instead of the filler); its recorded length is
  /// the server's usage.prompt_tokens, else planned_request::prompt_tokens.
  std::string prompt_text{};
};

/// What a run measured about itself.
struct run_record {
  std::vector<request_record> requests;  ///< in schedule order
  double wall_seconds = 0.0;             ///< from the start to the last end
  double cpu_seconds = 0.0;              ///< user + system CPU the client used
  std::size_t peak_in_flight = 0;        ///< most connections open at once
};

namespace detail {

inline double now_seconds(std::chrono::steady_clock::time_point origin) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
}

inline double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// JSON string contents: quotes, backslashes and control characters escaped.
inline void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += b;
    } else {
      out += c;
    }
  }
  out += '"';
}

// The HTTP request for one planned request.
inline std::string http_request(const endpoint& e, const client_options& o,
                                const planned_request& r) {
  std::string prompt = o.prompt_text;
  if (prompt.empty()) {
    prompt.reserve(r.prompt_tokens * o.prompt_word.size());
    for (std::size_t i = 0; i < r.prompt_tokens; ++i) prompt += o.prompt_word;
  }
  std::string body = "{\"model\": ";
  append_json_string(body, o.model);
  if (e.chat) {
    body += ", \"messages\": [{\"role\": \"user\", \"content\": ";
    append_json_string(body, prompt);
    body += "}], \"max_completion_tokens\": " + std::to_string(r.max_tokens);
  } else {
    body += ", \"prompt\": ";
    append_json_string(body, prompt);
  }
  body += ", \"max_tokens\": " + std::to_string(r.max_tokens);
  body += ", \"stream\": true, \"stream_options\": {\"include_usage\": true}";
  if (o.ignore_eos) body += ", \"ignore_eos\": true";
  body += "}";
  std::string out = "POST " + e.path + " HTTP/1.1\r\nHost: " + e.host + ":" +
                    std::to_string(e.port) +
                    "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"
                    "Connection: close\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n";
  out += body;
  return out;
}

// One connection's state: the request written, the response parsed as it arrives.
struct connection {
  int fd = -1;
  std::size_t index = 0;  // into the run's records
  std::string request;
  std::size_t written = 0;
  bool connected = false;
  // Response parsing.
  enum class stage : std::uint8_t { status, headers, body } at = stage::status;
  std::string line;  // the line being assembled (status, header or event)
  bool chunked = false;
  std::optional<std::size_t> content_length;
  std::size_t body_read = 0;
  // Chunked decoding.
  enum class chunk_stage : std::uint8_t { size, data, data_end, trailer } chunk = chunk_stage::size;
  std::size_t chunk_left = 0;
  std::string chunk_line;
  bool done = false;  // [DONE] seen, or the body ended completely
  double last_token = 0.0;
  bool any_token = false;
};

}  // namespace detail

/// Drives one run: sends `plan` (sorted by intended time) to `target`, each at its time, and
/// returns every request's record. Never throws for what the server does; a failure is a
/// record's `error`. Returns nullopt (with `error` set) only when the host cannot be resolved.
class stream_client {
 public:
  stream_client(endpoint target, client_options options)
      : target_(std::move(target)), options_(std::move(options)) {}

  std::optional<run_record> run(const std::vector<planned_request>& plan, std::string& error) {
    if (!resolve(error)) return std::nullopt;
    const int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
      error = std::string("epoll_create1: ") + std::strerror(errno);
      return std::nullopt;
    }
    run_record out;
    out.requests.resize(plan.size());
    std::vector<detail::connection> pool(plan.size());
    std::size_t next = 0, finished = 0, in_flight = 0;
    const double cpu_start = detail::cpu_seconds();
    const auto origin = std::chrono::steady_clock::now();
    std::vector<epoll_event> events(256);
    // Requests in flight, for the timeout sweep.
    std::vector<std::size_t> live;
    double next_sweep = 0.0;

    const auto close_request = [&](std::size_t i, failure why) {
      detail::connection& c = pool[i];
      request_record& r = out.requests[i];
      if (c.fd >= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
        ::close(c.fd);
        c.fd = -1;
        --in_flight;
      }
      r.finished = detail::now_seconds(origin);
      if (r.error == failure::none) r.error = why;
      if (r.error == failure::none && !r.usage_seen)
        r.output_tokens = r.token_gaps.size() + (c.any_token ? 1 : 0);
      ++finished;
      std::string().swap(c.request);
      std::string().swap(c.line);
    };

    while (finished < plan.size()) {
      double now = detail::now_seconds(origin);
      // Start every request whose time has come.
      while (next < plan.size() && plan[next].intended_seconds <= now &&
             in_flight < options_.max_in_flight) {
        start(ep, pool[next], out.requests[next], plan[next], next, origin);
        if (pool[next].fd >= 0) {
          ++in_flight;
          live.push_back(next);
          out.peak_in_flight = std::max(out.peak_in_flight, in_flight);
        } else {
          out.requests[next].finished = out.requests[next].sent;
          ++finished;
        }
        ++next;
        now = detail::now_seconds(origin);
      }
      // Wait for I/O until the next send (or a sweep).
      double wait = 0.05;
      if (next < plan.size() && in_flight < options_.max_in_flight)
        wait = std::min(wait, plan[next].intended_seconds - now);
      const int n = wait_for_events(ep, events, wait);
      for (int k = 0; k < n; ++k) {
        const std::size_t i = events[static_cast<std::size_t>(k)].data.u64;
        detail::connection& c = pool[i];
        if (c.fd < 0) continue;
        const std::uint32_t what = events[static_cast<std::size_t>(k)].events;
        if (!c.connected && (what & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
          int so_error = 0;
          socklen_t len = sizeof so_error;
          getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
          if (so_error != 0) {
            close_request(i, failure::connect);
            continue;
          }
          c.connected = true;
        }
        if (c.connected && c.written < c.request.size() && (what & EPOLLOUT)) {
          const ssize_t w = ::send(c.fd, c.request.data() + c.written, c.request.size() - c.written,
                                   MSG_NOSIGNAL);
          if (w > 0) c.written += static_cast<std::size_t>(w);
          if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            close_request(i, failure::broken_stream);
            continue;
          }
          if (c.written == c.request.size()) {
            epoll_event ev{};
            ev.events = EPOLLIN | EPOLLRDHUP;
            ev.data.u64 = i;
            epoll_ctl(ep, EPOLL_CTL_MOD, c.fd, &ev);
          }
        }
        if (what & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
          const failure f = read_some(c, out.requests[i], origin);
          if (f != failure::none || c.done) close_request(i, f);
        }
      }
      // Timeouts, every 50 ms.
      now = detail::now_seconds(origin);
      if (now >= next_sweep) {
        next_sweep = now + 0.05;
        std::size_t kept = 0;
        for (const std::size_t i : live) {
          if (pool[i].fd < 0) continue;
          if (now - out.requests[i].sent > options_.request_timeout_seconds) {
            close_request(i, failure::timeout);
            continue;
          }
          live[kept++] = i;
        }
        live.resize(kept);
      }
    }
    ::close(ep);
    out.wall_seconds = detail::now_seconds(origin);
    out.cpu_seconds = detail::cpu_seconds() - cpu_start;
    return out;
  }

 private:
  // epoll_pwait2 waits to the nanosecond (Linux 5.11); before it, epoll_wait's milliseconds,
  // rounded down, and the last millisecond before a send polled.
  int wait_for_events(int ep, std::vector<epoll_event>& events, double seconds) {
    const int capacity = static_cast<int>(events.size());
    if (seconds <= 0) return epoll_wait(ep, events.data(), capacity, 0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
    if (have_pwait2_) {
      timespec t{};
      t.tv_sec = static_cast<time_t>(seconds);
      t.tv_nsec = static_cast<long>((seconds - static_cast<double>(t.tv_sec)) * 1e9);
      const int n = epoll_pwait2(ep, events.data(), capacity, &t, nullptr);
      if (n >= 0 || errno != ENOSYS) return n < 0 ? 0 : n;
      have_pwait2_ = false;
    }
#endif
    const int ms = static_cast<int>(seconds * 1000.0);
    const int n = epoll_wait(ep, events.data(), capacity, ms);
    return n < 0 ? 0 : n;
  }

  bool resolve(std::string& error) {
    if (resolved_) return true;
    addrinfo hints{};  // ai_family 0: IPv4 or IPv6, whichever the name has
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int rc =
        getaddrinfo(target_.host.c_str(), std::to_string(target_.port).c_str(), &hints, &found);
    if (rc != 0 || found == nullptr) {
      error = "cannot resolve '" + target_.host + "': " + gai_strerror(rc);
      return false;
    }
    std::memcpy(&address_, found->ai_addr, found->ai_addrlen);
    address_length_ = found->ai_addrlen;
    family_ = found->ai_family;
    freeaddrinfo(found);
    resolved_ = true;
    return true;
  }

  void start(int ep, detail::connection& c, request_record& r, const planned_request& p,
             std::size_t index, std::chrono::steady_clock::time_point origin) {
    r.intended = p.intended_seconds;
    r.prompt_tokens = p.prompt_tokens;
    c.index = index;
    c.request = detail::http_request(target_, options_, p);
    r.sent = detail::now_seconds(origin);
    c.fd = ::socket(family_, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
      r.error = failure::connect;
      return;
    }
    const int one = 1;
    setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const int rc = ::connect(c.fd, reinterpret_cast<const sockaddr*>(&address_), address_length_);
    if (rc != 0 && errno != EINPROGRESS) {
      ::close(c.fd);
      c.fd = -1;
      r.error = failure::connect;
      return;
    }
    epoll_event ev{};
    ev.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = index;
    epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &ev);
  }

  // Reads what the socket has and parses it; a failure kind, or none (c.done when complete).
  failure read_some(detail::connection& c, request_record& r,
                    std::chrono::steady_clock::time_point origin) {
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
      if (n > 0) {
        const failure f = consume(c, r, std::string_view(buffer, static_cast<std::size_t>(n)),
                                  detail::now_seconds(origin));
        if (f != failure::none || c.done) return f;
        continue;
      }
      // The server closed: complete only if the stream said [DONE] (a close-delimited body
      // ends here too), else broken.
      if (n == 0) return c.done ? failure::none : failure::broken_stream;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return failure::none;
      if (errno == EINTR) continue;
      return failure::broken_stream;
    }
  }

  // Feeds response bytes through the HTTP status line, headers, the body's framing and the
  // event lines.
  failure consume(detail::connection& c, request_record& r, std::string_view bytes, double now) {
    using stage = detail::connection::stage;
    while (!bytes.empty() && !c.done) {
      if (c.at != stage::body) {
        const std::size_t nl = bytes.find('\n');
        const std::size_t take = nl == std::string_view::npos ? bytes.size() : nl + 1;
        if (c.line.size() + take > options_.max_line_bytes) return failure::line_too_long;
        c.line.append(bytes.substr(0, take));
        bytes.remove_prefix(take);
        if (nl == std::string_view::npos) break;
        std::string_view line = c.line;
        line.remove_suffix(1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (c.at == stage::status) {
          // "HTTP/1.1 200 OK"
          if (!line.starts_with("HTTP/1.") || line.size() < 12) return failure::malformed;
          r.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
          c.at = stage::headers;
        } else if (line.empty()) {
          if (r.status != 200) {
            r.error = failure::http_status;
            return failure::http_status;
          }
          c.at = stage::body;
        } else {
          header(c, line);
        }
        c.line.clear();
        continue;
      }
      // The body: de-chunked (or as it comes), then split into event lines.
      if (!c.chunked) {
        std::string_view part = bytes;
        if (c.content_length) part = part.substr(0, *c.content_length - c.body_read);
        c.body_read += part.size();
        bytes.remove_prefix(part.size());
        if (const failure f = events(c, r, part, now); f != failure::none) return f;
        if (c.content_length && c.body_read == *c.content_length && !c.done)
          return failure::broken_stream;  // a complete body without [DONE]
        continue;
      }
      using cs = detail::connection::chunk_stage;
      if (c.chunk == cs::size || c.chunk == cs::data_end || c.chunk == cs::trailer) {
        const std::size_t nl = bytes.find('\n');
        const std::size_t take = nl == std::string_view::npos ? bytes.size() : nl + 1;
        if (c.chunk_line.size() + take > 1024) return failure::malformed;
        c.chunk_line.append(bytes.substr(0, take));
        bytes.remove_prefix(take);
        if (nl == std::string_view::npos) break;
        std::string_view line = c.chunk_line;
        line.remove_suffix(1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (c.chunk == cs::data_end) {
          if (!line.empty()) return failure::malformed;
          c.chunk = cs::size;
        } else if (c.chunk == cs::trailer) {
          if (line.empty()) return c.done ? failure::none : failure::broken_stream;
        } else {
          std::size_t size = 0;
          bool digits = false;
          for (const char ch : line) {
            int v = -1;
            if (ch >= '0' && ch <= '9')
              v = ch - '0';
            else if (ch >= 'a' && ch <= 'f')
              v = ch - 'a' + 10;
            else if (ch >= 'A' && ch <= 'F')
              v = ch - 'A' + 10;
            else if (ch == ';' || ch == ' ')
              break;  // a chunk extension
            else
              return failure::malformed;
            if (size > (std::size_t{1} << 40)) return failure::malformed;
            size = size * 16 + static_cast<std::size_t>(v);
            digits = true;
          }
          if (!digits) return failure::malformed;
          c.chunk_left = size;
          c.chunk = size == 0 ? cs::trailer : cs::data;
          if (size == 0 && !c.done) return failure::broken_stream;  // the body ended early
        }
        c.chunk_line.clear();
        continue;
      }
      // cs::data
      const std::string_view part = bytes.substr(0, c.chunk_left);
      c.chunk_left -= part.size();
      bytes.remove_prefix(part.size());
      if (c.chunk_left == 0) c.chunk = cs::data_end;
      if (const failure f = events(c, r, part, now); f != failure::none) return f;
    }
    return failure::none;
  }

  static void header(detail::connection& c, std::string_view line) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string name(line.substr(0, colon));
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (name == "transfer-encoding" && value.find("chunked") != std::string_view::npos)
      c.chunked = true;
    if (name == "content-length") {
      std::size_t n = 0;
      for (const char ch : value)
        if (ch >= '0' && ch <= '9') n = n * 10 + static_cast<std::size_t>(ch - '0');
      c.content_length = n;
    }
  }

  // Splits body bytes into lines; each "data: " line is one event.
  failure events(detail::connection& c, request_record& r, std::string_view part, double now) {
    while (!part.empty() && !c.done) {
      const std::size_t nl = part.find('\n');
      const std::size_t take = nl == std::string_view::npos ? part.size() : nl + 1;
      if (c.line.size() + take > options_.max_line_bytes) return failure::line_too_long;
      c.line.append(part.substr(0, take));
      part.remove_prefix(take);
      if (nl == std::string_view::npos) break;
      std::string_view line = c.line;
      line.remove_suffix(1);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      const failure f = event(c, r, line, now);
      c.line.clear();
      if (f != failure::none) return f;
    }
    return failure::none;
  }

  // One SSE line (https://html.spec.whatwg.org/multipage/server-sent-events.html): blank lines
  // and comments (":") separate or annotate events; "data: {json}" is a chunk; "data: [DONE]"
  // ends the stream; other fields (event, id, retry) are ignored.
  failure event(detail::connection& c, request_record& r, std::string_view line, double now) {
    if (line.empty() || line.front() == ':') return failure::none;
    if (!line.starts_with("data:")) {
      const std::size_t colon = line.find(':');
      const std::string_view field = line.substr(0, colon);
      if (field == "event" || field == "id" || field == "retry") return failure::none;
      return failure::malformed;
    }
    line.remove_prefix(5);
    if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line == "[DONE]") {
      c.done = true;
      return failure::none;
    }
    using ::headroom::detail::json_document;
    using ::headroom::detail::json_kind;
    const json_document doc = json_document::parse(line, {.max_depth = 32});
    if (!doc.ok() || !doc.root().is(json_kind::object)) return failure::malformed;
    const auto root = doc.root();
    if (root["error"].present()) return failure::malformed;
    const auto usage = root["usage"];
    if (usage.is(json_kind::object)) {
      const double completion = usage["completion_tokens"].number();
      const double prompt = usage["prompt_tokens"].number();
      if (completion >= 0 && completion < 1e12) {
        r.output_tokens = static_cast<std::size_t>(completion);
        r.usage_seen = true;
      }
      if (prompt >= 0 && prompt < 1e12) r.prompt_tokens = static_cast<std::size_t>(prompt);
    }
    const auto choices = root["choices"];
    if (choices.is(json_kind::array) && choices.size() > 0) {
      const auto choice = choices.at(0);
      std::string_view text = choice["text"].string();
      if (text.empty()) text = choice["delta"]["content"].string();
      if (!text.empty()) {
        if (!c.any_token) {
          r.first_token = now;
          c.any_token = true;
        } else {
          r.token_gaps.push_back(now - c.last_token);
        }
        c.last_token = now;
      }
    }
    return failure::none;
  }

  endpoint target_;
  client_options options_;
  bool resolved_ = false;
  sockaddr_storage address_{};
  socklen_t address_length_ = 0;
  int family_ = AF_INET;
  bool have_pwait2_ = true;
};

}  // namespace example
