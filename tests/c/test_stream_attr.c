/* aclrtSetStreamAttribute / aclrtGetStreamAttribute: each attribute's value and rules, that
 * they agree with the calls of their own, what a get writes, and the documented error codes. */
#include "check.h"

static aclrtStreamAttrValue filled(void)
{
    aclrtStreamAttrValue v;
    memset(&v, 0xFF, sizeof v);
    return v;
}

int main(void)
{
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    aclrtStream s, p;
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtCreateStreamWithConfig(&p, 3, ACL_STREAM_FAST_LAUNCH));
    aclrtStreamAttrValue v;

    /* Failure mode: continue until set, then as aclrtSetStreamFailureMode (once). A get writes
     * the 8-byte member only. */
    v = filled();
    EXPECT_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    EXPECT_CODE(v.failureMode, ACL_CONTINUE_ON_FAILURE);
    CHECK(v.reserve[2] == 0xFFFFFFFFu && v.reserve[3] == 0xFFFFFFFFu);
    v.failureMode = ACL_STOP_ON_FAILURE;
    EXPECT_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    v = filled();
    EXPECT_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    EXPECT_CODE(v.failureMode, ACL_STOP_ON_FAILURE);
    EXPECT_CODE(aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE), ACL_ERROR_RT_PARAM_INVALID);
    v.failureMode = 5;
    EXPECT_CODE(aclrtSetStreamAttribute(p, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_ERROR_RT_PARAM_INVALID);

    /* Overflow check: the same switch as aclrtSetStreamOverflowSwitch; a get writes 4 bytes. */
    v.overflowSwitch = 1;
    EXPECT_OK(aclrtSetStreamAttribute(p, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
    uint32_t flag = 9;
    EXPECT_OK(aclrtGetStreamOverflowSwitch(p, &flag));
    EXPECT_CODE(flag, 1);
    EXPECT_OK(aclrtSetStreamOverflowSwitch(p, 0));
    v = filled();
    EXPECT_OK(aclrtGetStreamAttribute(p, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
    EXPECT_CODE(v.overflowSwitch, 0);
    CHECK(v.reserve[1] == 0xFFFFFFFFu);
    v.overflowSwitch = 2;
    EXPECT_CODE(aclrtSetStreamAttribute(p, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v), ACL_ERROR_RT_PARAM_INVALID);

    /* User tag: any value, kept per stream; NULL is the default stream. */
    v.userCustomTag = 0xC0FFEEu;
    EXPECT_OK(aclrtSetStreamAttribute(p, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    v.userCustomTag = 42;
    EXPECT_OK(aclrtSetStreamAttribute(NULL, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    v = filled();
    EXPECT_OK(aclrtGetStreamAttribute(p, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    EXPECT_CODE(v.userCustomTag, 0xC0FFEEu);
    EXPECT_OK(aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    EXPECT_CODE(v.userCustomTag, 42);
    EXPECT_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    EXPECT_CODE(v.userCustomTag, 0);

    /* Operator-info cache switch: 0 or 1. */
    v.cacheOpInfoSwitch = 1;
    EXPECT_OK(aclrtSetStreamAttribute(p, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
    v = filled();
    EXPECT_OK(aclrtGetStreamAttribute(p, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
    EXPECT_CODE(v.cacheOpInfoSwitch, 1);
    v.cacheOpInfoSwitch = 2;
    EXPECT_CODE(aclrtSetStreamAttribute(p, ACL_STREAM_ATTR_CACHE_OP_INFO, &v), ACL_ERROR_RT_PARAM_INVALID);

    /* Priority: as created until set, clamped to [0, 7]; the default stream has none. */
    v = filled();
    EXPECT_OK(aclrtGetStreamAttribute(p, ACL_STREAM_ATTR_PRIORITY, &v));
    EXPECT_CODE(v.streamPriority, 3);
    v.streamPriority = 9;
    EXPECT_OK(aclrtSetStreamAttribute(p, ACL_STREAM_ATTR_PRIORITY, &v));
    EXPECT_OK(aclrtGetStreamAttribute(p, ACL_STREAM_ATTR_PRIORITY, &v));
    EXPECT_CODE(v.streamPriority, 7);
    v.streamPriority = 1;
    EXPECT_OK(aclrtSetStreamAttribute(p, ACL_STREAM_ATTR_PRIORITY, &v));
    uint32_t priority = 99;
    EXPECT_OK(aclrtStreamGetPriority(p, &priority));
    EXPECT_CODE(priority, 1);
    EXPECT_CODE(aclrtSetStreamAttribute(NULL, ACL_STREAM_ATTR_PRIORITY, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_PRIORITY, &v), ACL_ERROR_RT_PARAM_INVALID);

    /* Errors: a NULL value, an attribute out of range, a destroyed stream. */
    EXPECT_CODE(aclrtSetStreamAttribute(p, ACL_STREAM_ATTR_USER_CUSTOM_TAG, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetStreamAttribute(p, ACL_STREAM_ATTR_USER_CUSTOM_TAG, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetStreamAttribute(p, (aclrtStreamAttr)0, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetStreamAttribute(p, (aclrtStreamAttr)6, &v), ACL_ERROR_RT_PARAM_INVALID);
    REQUIRE_OK(aclrtDestroyStream(s));
    aclError stale = aclrtGetStreamOverflowSwitch(s, &flag);
    CHECK(stale != ACL_SUCCESS);
    EXPECT_CODE(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v), stale);

    REQUIRE_OK(aclrtDestroyStream(p));
    EXPECT_OK(aclrtResetDeviceForce(0));
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_stream_attr");
}
