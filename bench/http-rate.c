/*
 * Constant-rate HTTP/1.1 load client for bench/http.ts (compiled by it at
 * run time into a temporary directory; never committed as a binary). Linux
 * only (epoll).
 *
 *   http-rate HOST PORT CONNS RATE WARMUP_S DURATION_S TIMEOUT_S PATH
 *
 * Offers RATE requests per second in total over CONNS keep-alive
 * connections, one request in flight per connection (no pipelining), for
 * WARMUP_S + DURATION_S seconds. Request k of connection c is due at
 * t0 + (k * CONNS + c) / RATE: the load is fixed in advance and does not
 * slow down when the server does. A connection whose previous reply is late
 * sends its next request as soon as that reply is complete, and the
 * latency of every request is measured from the moment it was due, not the
 * moment it left: a stall of the server shows in the latency of every
 * request that should have been sent during it (no coordinated omission,
 * the correction wrk2 makes).
 *
 * Latencies are recorded for the requests due in the measured window (after
 * the warm-up); the client waits for all of them (at most TIMEOUT_S) before
 * it reports. Replies must be `HTTP/1.x 200` with a Content-Length; any other
 * reply, a closed connection or a short write is an error.
 *
 * `achieved` counts the replies that came in the measured window, per
 * second: below `offered` when the server fell behind.
 *
 * Output: one line of JSON on stdout, e.g.
 *   {"ok":true,"offered":50000,"requests":500000,"seconds":10.0,"achieved":49998,
 *    "p50":120,"p90":180,"p99":420,"p999":1900,"max":5200,"lateSends":0}
 * (latencies in microseconds; lateSends: requests the client itself sent
 * more than 1 ms after they were due while their connection was free, which
 * would mean the client, not the server, fell behind)
 * or {"ok":false,"error":"..."} with exit status 1. Every loop is bounded by
 * the deadline WARMUP_S + DURATION_S + TIMEOUT_S.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "client-util.h"

#define MAXCONN 1024
#define RBUF 8192
#define HIST_US 1000000 /* one bucket per microsecond up to 1 s; longer ones counted above */

typedef struct {
  int fd;
  int id;
  int busy;         /* a request is in flight */
  uint64_t k;       /* index of the next request (or of the one in flight) */
  int64_t due_ns;   /* when the request in flight was due */
  int64_t free_ns;  /* when the connection last became free */
  size_t have;      /* bytes of the current reply received */
  char buf[RBUF];
} conn_t;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Length of the complete reply at the start of buf[0..n), 0 while it is
 * incomplete, -1 if it is not a 200 with a Content-Length.
 */
static long reply_length(const char *buf, size_t n) {
  const char *end = memmem(buf, n, "\r\n\r\n", 4);
  if (end == NULL) return n >= RBUF ? -1 : 0;
  size_t head = (size_t)(end - buf) + 4;
  if (head < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || memcmp(buf + 8, " 200", 4) != 0) return -1;
  long body = -1;
  const char *p = memchr(buf, '\n', head);
  while (p != NULL && (size_t)(p + 1 - buf) < head) {
    const char *line = p + 1;
    if ((size_t)(buf + head - line) > 15 && strncasecmp(line, "content-length:", 15) == 0) {
      const char *v = line + 15;
      while (*v == ' ' || *v == '\t') v++;
      body = 0;
      if (*v < '0' || *v > '9') return -1;
      while (*v >= '0' && *v <= '9') body = body * 10 + (*v++ - '0');
    }
    p = memchr(line, '\n', (size_t)(buf + head - line));
  }
  if (body < 0 || head + (size_t)body > RBUF) return -1;
  return head + (size_t)body <= n ? (long)(head + (size_t)body) : 0;
}

/*
 * epoll_pwait2 (Linux 5.11) through syscall(2), so that an older C library
 * still compiles this file; -1 with ENOSYS where the kernel or its headers
 * lack it (the caller then waits in milliseconds and spins the rest).
 */
static int wait_precise(int ep, struct epoll_event *evs, int max, int64_t ns) {
#ifdef SYS_epoll_pwait2
  struct {
    long long tv_sec;
    long long tv_nsec;
  } ts = {ns / 1000000000, ns % 1000000000};
  return (int)syscall(SYS_epoll_pwait2, ep, evs, max, &ts, NULL, (size_t)0);
#else
  (void)ep;
  (void)evs;
  (void)max;
  (void)ns;
  errno = ENOSYS;
  return -1;
#endif
}

int main(int argc, char **argv) {
  if (argc != 9) failmsg("usage: http-rate HOST PORT CONNS RATE WARMUP_S DURATION_S TIMEOUT_S PATH");
  const char *host = argv[1];
  int port = atoi(argv[2]);
  int nconn = atoi(argv[3]);
  double rate = atof(argv[4]);
  double warmup = atof(argv[5]);
  double duration = atof(argv[6]);
  double timeout = atof(argv[7]);
  const char *path = argv[8];
  if (nconn < 1 || nconn > MAXCONN) failmsg("CONNS must be 1..1024");
  if (!(rate > 0) || !(duration > 0) || warmup < 0 || !(timeout > 0)) failmsg("bad RATE, WARMUP_S, DURATION_S or TIMEOUT_S");

  char req[512];
  int reqlen = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s:%d\r\n\r\n", path, host, port);
  if (reqlen <= 0 || (size_t)reqlen >= sizeof req) failmsg("PATH too long");

  uint32_t *hist = calloc(HIST_US, sizeof *hist);
  conn_t *cs = calloc((size_t)nconn, sizeof *cs);
  if (hist == NULL || cs == NULL) failmsg("out of memory");
  int ep = epoll_create1(0);
  if (ep < 0) fail("epoll_create1");
  for (int i = 0; i < nconn; i++) {
    cs[i].fd = connect_to(host, port);
    cs[i].id = i;
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = &cs[i]};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &e) != 0) fail("epoll_ctl");
  }

  const double step_ns = 1e9 / rate; /* between two requests of the whole client */
  const int64_t t0 = now_ns() + 10000000;
  const int64_t measure_from = t0 + (int64_t)(warmup * 1e9);
  const int64_t stop_sending = measure_from + (int64_t)(duration * 1e9);
  const int64_t deadline = stop_sending + (int64_t)(timeout * 1e9);
  uint64_t recorded = 0, over = 0, late_sends = 0, in_window = 0;
  int64_t max_us = 0;
  int busy = 0;
  int have_pwait2 = 1; /* epoll_pwait2 (Linux 5.11): timeouts in nanoseconds */
  struct epoll_event evs[256];
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* wake on time, not up to 50 us late */

  for (;;) {
    int64_t now = now_ns();
    if (now > deadline) failmsg("timeout: replies still missing at the deadline");
    /* send what is due on free connections; find the next due time */
    int64_t next_due = INT64_MAX;
    for (int i = 0; i < nconn; i++) {
      conn_t *c = &cs[i];
      if (c->busy) continue;
      int64_t due = t0 + (int64_t)(((double)c->k * nconn + c->id) * step_ns);
      if (due >= stop_sending) continue;
      if (due > now) {
        if (due < next_due) next_due = due;
        continue;
      }
      ssize_t w = write(c->fd, req, (size_t)reqlen);
      if (w != reqlen) {
        if (w < 0) fail("write");
        failmsg("short write");
      }
      if (due >= measure_from && c->free_ns <= due && now - due > 1000000) late_sends++;
      c->busy = 1;
      c->due_ns = due;
      busy++;
    }
    if (busy == 0 && next_due == INT64_MAX) break; /* all sent and answered */
    /* sleep until the next request is due or a reply comes, to the microsecond (a
       client that spins would compete for its core with whatever else runs there) */
    int64_t until = next_due == INT64_MAX ? deadline : next_due;
    int64_t wait_ns = until - now;
    if (wait_ns < 0) wait_ns = 0;
    if (wait_ns > 1000000000) wait_ns = 1000000000;
    int n;
    if (have_pwait2) {
      n = wait_precise(ep, evs, 256, wait_ns);
      if (n < 0 && errno == ENOSYS) {
        have_pwait2 = 0;
        continue;
      }
    } else {
      n = epoll_wait(ep, evs, 256, wait_ns < 2000000 ? 0 : (int)(wait_ns / 1000000) - 1); /* then spin */
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("epoll_wait");
    }
    for (int j = 0; j < n; j++) {
      conn_t *c = evs[j].data.ptr;
      ssize_t r = read(c->fd, c->buf + c->have, RBUF - c->have);
      if (r == 0) failmsg("connection closed by the server");
      if (r < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        fail("read");
      }
      if (!c->busy) failmsg("bytes received with no request in flight");
      c->have += (size_t)r;
      long len = reply_length(c->buf, c->have);
      if (len < 0) failmsg("reply is not a 200 with a Content-Length (or too large)");
      if (len == 0) continue;
      if ((size_t)len != c->have) failmsg("more bytes than one reply");
      int64_t done = now_ns();
      if (done >= measure_from && done < stop_sending) in_window++;
      if (c->due_ns >= measure_from) {
        int64_t us = (done - c->due_ns) / 1000;
        if (us < 0) us = 0;
        if (us < HIST_US) hist[us]++;
        else over++;
        if (us > max_us) max_us = us;
        recorded++;
      }
      c->have = 0;
      c->busy = 0;
      c->k++;
      c->free_ns = done;
      busy--;
    }
  }

  uint64_t total = recorded;
  if (total == 0) failmsg("no request in the measured window");
  const double qs[4] = {0.50, 0.90, 0.99, 0.999};
  long long at[4];
  for (int q = 0; q < 4; q++) {
    uint64_t want = (uint64_t)(qs[q] * (double)total + 0.5);
    if (want < 1) want = 1;
    uint64_t seen = 0;
    at[q] = max_us;
    for (int us = 0; us < HIST_US; us++) {
      seen += hist[us];
      if (seen >= want) {
        at[q] = us;
        break;
      }
    }
  }
  printf("{\"ok\":true,\"offered\":%.0f,\"requests\":%llu,\"seconds\":%.3f,\"achieved\":%.0f,"
         "\"p50\":%lld,\"p90\":%lld,\"p99\":%lld,\"p999\":%lld,\"max\":%lld,\"overOneSecond\":%llu,\"lateSends\":%llu}\n",
         rate, (unsigned long long)total, duration, (double)in_window / duration, at[0], at[1], at[2], at[3],
         (long long)max_us, (unsigned long long)over, (unsigned long long)late_sends);
  for (int i = 0; i < nconn; i++) close(cs[i].fd);
  return 0;
}
