/* test_err.c — the error table: names, gRPC status mapping both ways, messages. */
#include <string.h>

#include "common/err.h"
#include "tests/testlib.h"

static void test_names_and_status(void) {
  EG_CHECK_STR(eg_code_name(EG_OK), "OK");
  EG_CHECK_STR(eg_code_name(EG_EINVAL), "INVALID_ARGUMENT");
  EG_CHECK_STR(eg_code_name((eg_code)999), "UNKNOWN");
  EG_CHECK_INT(eg_code_to_grpc(EG_OK), 0);
  EG_CHECK_INT(eg_code_to_grpc(EG_EINVAL), 3);
  EG_CHECK_INT(eg_code_to_grpc(EG_ETIMEOUT), 4);
  EG_CHECK_INT(eg_code_to_grpc(EG_ENOTFOUND), 5);
  EG_CHECK_INT(eg_code_to_grpc(EG_EPERM), 7);
  EG_CHECK_INT(eg_code_to_grpc(EG_EFULL), 8);
  EG_CHECK_INT(eg_code_to_grpc(EG_EUNIMPL), 12);
  EG_CHECK_INT(eg_code_to_grpc(EG_EUNAVAIL), 14);
  EG_CHECK_INT(eg_code_to_grpc(EG_EUNAUTH), 16);
  EG_CHECK_INT(eg_code_to_grpc(EG_ECORRUPT), 15);
}

static void test_round_trip(void) {
  /* Every gRPC status 0..16 maps to a code that maps back to the same status. */
  for (int s = 0; s <= 16; s++) EG_CHECK_INT(eg_code_to_grpc(eg_code_from_grpc(s)), s);
  EG_CHECK_INT(eg_code_from_grpc(99), EG_EUNKNOWN);
}

static void test_messages(void) {
  eg_err e;
  eg_err_clear(&e);
  EG_CHECK_INT(e.code, EG_OK);
  EG_CHECK_INT(eg_err_set(&e, EG_EINVAL, "k must be <= %d", 100), EG_EINVAL);
  EG_CHECK_STR(e.msg, "k must be <= 100");
  eg_err_prefix(&e, "graphd: ");
  EG_CHECK_STR(e.msg, "graphd: k must be <= 100");
  EG_CHECK_INT(eg_err_set(NULL, EG_EIO, "ignored"), EG_EIO);
  char big[600];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  eg_err_set(&e, EG_EINVAL, "%s", big);
  EG_CHECK_INT(strlen(e.msg), EG_ERR_MSG_MAX - 1);
}

int main(void) {
  EG_RUN(test_names_and_status);
  EG_RUN(test_round_trip);
  EG_RUN(test_messages);
  return eg_test_finish();
}
