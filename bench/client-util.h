/*
 * What the load clients compiled at run time share (bench/echo-client.c,
 * bench/http-rate.c): failing with one line of JSON on stdout, and a
 * non-blocking TCP connection to an IPv4 address with TCP_NODELAY.
 * Included by both; never compiled alone.
 */
#ifndef EVENTIDE_BENCH_CLIENT_UTIL_H
#define EVENTIDE_BENCH_CLIENT_UTIL_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Prints {"ok":false,"error":"WHAT: strerror(errno)"} and exits with status 1. */
static void fail(const char *what) {
  printf("{\"ok\":false,\"error\":\"%s: %s\"}\n", what, strerror(errno));
  fflush(stdout);
  exit(1);
}

/* Prints {"ok":false,"error":"WHAT"} and exits with status 1. */
static void failmsg(const char *what) {
  printf("{\"ok\":false,\"error\":\"%s\"}\n", what);
  fflush(stdout);
  exit(1);
}

/* A connected, non-blocking TCP socket to HOST:PORT (HOST an IPv4 address), or exits. */
static int connect_to(const char *host, int port) {
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) failmsg("bad IPv4 address");
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) fail("socket");
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) fail("connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

#endif
