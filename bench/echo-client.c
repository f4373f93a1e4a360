/*
 * Load client for bench/echo.ts (compiled by it at run time into a temporary
 * directory; never committed as a binary). Linux only (epoll).
 *
 *   echo-client stream   HOST PORT CONNS TOTAL_BYTES WRITE_SIZE TIMEOUT_S
 *   echo-client pingpong HOST PORT CONNS MSG_SIZE DURATION_S TIMEOUT_S
 *
 * stream:   TOTAL_BYTES are split over CONNS connections; each connection
 *           writes its share in WRITE_SIZE writes while reading the echo
 *           concurrently (at most WINDOW bytes in flight per connection),
 *           then half-closes. Every byte received is checked against the
 *           pattern sent (byte i of a stream is i & 0xff) and the byte count
 *           must match exactly; the clock stops when the last byte is back.
 * pingpong: each connection sends MSG_SIZE bytes, waits for all of them to
 *           come back (checked), and sends the next message, for DURATION_S
 *           seconds; the result is the number of completed round trips.
 *
 * Output: one line of JSON on stdout, e.g.
 *   {"ok":true,"mode":"stream","bytes":1073741824,"seconds":0.61}
 *   {"ok":true,"mode":"pingpong","roundtrips":700000,"seconds":5.0}
 * or {"ok":false,"error":"..."} with exit status 1. Every loop is bounded by
 * TIMEOUT_S.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "client-util.h"

#define WINDOW (4u << 20)
#define RBUF (256u << 10)
#define MAXCONN 1024

typedef struct {
  int fd;
  uint64_t target; /* stream: bytes to send */
  uint64_t sent;
  uint64_t recvd;
  int wr_closed;
  int out_armed; /* EPOLLOUT is registered */
  int done;
  /* ping-pong */
  uint32_t msg_recvd;
  uint64_t seq;
  uint64_t rts;
} conn_t;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_events(int ep, conn_t *c, uint32_t ev) {
  struct epoll_event e;
  e.events = ev;
  e.data.ptr = c;
  if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e) != 0) fail("epoll_ctl");
}

static int run_stream(const char *host, int port, int nconn, uint64_t total, uint32_t wsize, double timeout) {
  static unsigned char pattern[(128u << 10) + 256];
  static unsigned char rbuf[RBUF];
  for (size_t i = 0; i < sizeof pattern; i++) pattern[i] = (unsigned char)(i & 0xff);
  if (wsize == 0 || wsize > (128u << 10)) failmsg("WRITE_SIZE must be 1..131072");
  conn_t *cs = calloc((size_t)nconn, sizeof *cs);
  int ep = epoll_create1(0);
  if (ep < 0) fail("epoll_create1");
  for (int i = 0; i < nconn; i++) {
    cs[i].fd = connect_to(host, port);
    cs[i].target = total / (uint64_t)nconn + ((uint64_t)i < total % (uint64_t)nconn ? 1 : 0);
    cs[i].out_armed = 1;
    struct epoll_event e = {.events = EPOLLIN | EPOLLOUT, .data.ptr = &cs[i]};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &e) != 0) fail("epoll_ctl");
  }
  struct epoll_event evs[256];
  int remaining = nconn;
  double t0 = now_s();
  while (remaining > 0) {
    if (now_s() - t0 > timeout) failmsg("timeout");
    int n = epoll_wait(ep, evs, 256, 1000);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("epoll_wait");
    }
    for (int k = 0; k < n; k++) {
      conn_t *c = evs[k].data.ptr;
      if (c->done) continue;
      if (evs[k].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
        for (int spins = 0; spins < 64; spins++) {
          ssize_t r = read(c->fd, rbuf, RBUF);
          if (r > 0) {
            size_t off = (size_t)(c->recvd & 0xff);
            size_t len = (size_t)r;
            size_t pos = 0;
            while (pos < len) { /* compare against the pattern in pieces of at most 128 KiB */
              size_t m = len - pos < (128u << 10) ? len - pos : (128u << 10);
              if (memcmp(rbuf + pos, pattern + ((off + pos) & 0xff), m) != 0) failmsg("echoed bytes differ");
              pos += m;
            }
            c->recvd += (uint64_t)r;
            if (c->recvd > c->target) failmsg("received more bytes than sent");
            if (c->recvd == c->target) {
              c->done = 1;
              remaining--;
              epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
              break;
            }
            if ((size_t)r < RBUF) break;
          } else if (r == 0) {
            failmsg("connection closed before all bytes came back");
          } else {
            if (errno == EAGAIN || errno == EINTR) break;
            fail("read");
          }
        }
      }
      if (c->done) continue;
      if ((evs[k].events & EPOLLOUT) && !c->wr_closed) {
        while (c->sent < c->target && c->sent - c->recvd < WINDOW) {
          uint64_t left = c->target - c->sent;
          uint32_t want = left < wsize ? (uint32_t)left : wsize;
          ssize_t w = write(c->fd, pattern + (c->sent & 0xff), want);
          if (w > 0) {
            c->sent += (uint64_t)w;
          } else {
            if (w < 0 && (errno == EAGAIN || errno == EINTR)) break;
            fail("write");
          }
        }
        if (c->sent == c->target) {
          shutdown(c->fd, SHUT_WR);
          c->wr_closed = 1;
          c->out_armed = 0;
          set_events(ep, c, EPOLLIN);
        } else if (c->sent - c->recvd >= WINDOW) {
          c->out_armed = 0;
          set_events(ep, c, EPOLLIN); /* window full: wait for echoes */
        }
      } else if (!c->wr_closed && !c->out_armed && c->sent - c->recvd < WINDOW / 2) {
        c->out_armed = 1;
        set_events(ep, c, EPOLLIN | EPOLLOUT); /* window has room again */
      }
    }
  }
  double secs = now_s() - t0;
  uint64_t got = 0;
  for (int i = 0; i < nconn; i++) {
    got += cs[i].recvd;
    close(cs[i].fd);
  }
  if (got != total) failmsg("byte count mismatch");
  printf("{\"ok\":true,\"mode\":\"stream\",\"bytes\":%llu,\"seconds\":%.6f}\n", (unsigned long long)got, secs);
  return 0;
}

static void fill_msg(unsigned char *m, uint32_t size, uint64_t seq, int id) {
  for (uint32_t i = 0; i < size; i++) m[i] = (unsigned char)((seq * 31u + (uint64_t)id * 7u + i) & 0xff);
}

static int run_pingpong(const char *host, int port, int nconn, uint32_t msize, double duration, double timeout) {
  if (msize == 0 || msize > 65536) failmsg("MSG_SIZE must be 1..65536");
  conn_t *cs = calloc((size_t)nconn, sizeof *cs);
  unsigned char *msgs = malloc((size_t)nconn * msize);
  unsigned char *rbuf = malloc(msize);
  int ep = epoll_create1(0);
  if (ep < 0) fail("epoll_create1");
  for (int i = 0; i < nconn; i++) {
    cs[i].fd = connect_to(host, port);
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = &cs[i]};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &e) != 0) fail("epoll_ctl");
  }
  double t0 = now_s();
  for (int i = 0; i < nconn; i++) {
    fill_msg(msgs + (size_t)i * msize, msize, 0, i);
    if (write(cs[i].fd, msgs + (size_t)i * msize, msize) != (ssize_t)msize) fail("write");
  }
  struct epoll_event evs[256];
  int active = nconn;
  int stopping = 0;
  while (active > 0) {
    double t = now_s();
    if (t - t0 > timeout) failmsg("timeout");
    if (!stopping && t - t0 >= duration) stopping = 1;
    int n = epoll_wait(ep, evs, 256, 1000);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("epoll_wait");
    }
    for (int k = 0; k < n; k++) {
      conn_t *c = evs[k].data.ptr;
      int id = (int)(c - cs);
      if (c->done) continue;
      ssize_t r = read(c->fd, rbuf, msize - c->msg_recvd);
      if (r == 0) failmsg("connection closed during ping-pong");
      if (r < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        fail("read");
      }
      if (memcmp(rbuf, msgs + (size_t)id * msize + c->msg_recvd, (size_t)r) != 0) failmsg("echoed message differs");
      c->msg_recvd += (uint32_t)r;
      if (c->msg_recvd < msize) continue;
      c->msg_recvd = 0;
      c->rts++;
      if (stopping) {
        c->done = 1;
        active--;
        epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
        continue;
      }
      c->seq++;
      fill_msg(msgs + (size_t)id * msize, msize, c->seq, id);
      if (write(c->fd, msgs + (size_t)id * msize, msize) != (ssize_t)msize) fail("write");
    }
  }
  double secs = now_s() - t0;
  uint64_t rts = 0;
  for (int i = 0; i < nconn; i++) {
    rts += cs[i].rts;
    close(cs[i].fd);
  }
  printf("{\"ok\":true,\"mode\":\"pingpong\",\"roundtrips\":%llu,\"seconds\":%.6f}\n", (unsigned long long)rts, secs);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: %s stream HOST PORT CONNS TOTAL_BYTES WRITE_SIZE TIMEOUT_S\n"
                    "       %s pingpong HOST PORT CONNS MSG_SIZE DURATION_S TIMEOUT_S\n", argv[0], argv[0]);
    return 2;
  }
  int port = atoi(argv[3]);
  int nconn = atoi(argv[4]);
  if (port < 1 || port > 65535 || nconn < 1 || nconn > MAXCONN) failmsg("bad PORT or CONNS");
  if (strcmp(argv[1], "stream") == 0) {
    return run_stream(argv[2], port, nconn, strtoull(argv[5], NULL, 10), (uint32_t)strtoul(argv[6], NULL, 10), atof(argv[7]));
  }
  if (strcmp(argv[1], "pingpong") == 0) {
    return run_pingpong(argv[2], port, nconn, (uint32_t)strtoul(argv[5], NULL, 10), atof(argv[6]), atof(argv[7]));
  }
  failmsg("unknown mode");
  return 2;
}
