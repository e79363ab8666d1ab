/* mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
 *
 * server/srv_methods.h -- the methods that run in a session's worker and
 * need nothing from the router but the session: the router forwards the
 * client's params and answers with the worker's result (or error) as it is.
 *
 * Both processes expand this one list (like libuv's UV_ERRNO_MAP): the
 * router's method table (srv_methods.c) takes the name and the flags, the
 * worker's (server/worker/wk_methods.c) the name and the handler. So a new
 * worker-backed method of this kind is its handler in server/worker/ plus
 * one line here; session/svg was added that way (issue 12).
 *
 * XX(client method, worker handler, flags). Flags (srv.h, SRV_M_*):
 *   SRV_M_QUICK  a projection of the kept analysis, well under a millisecond:
 *                the pool may send it ahead of the reply before it
 *   SRV_M_DEBUG  only with "debug_methods": true (tests)
 */
#ifndef SRV_METHODS_H
#define SRV_METHODS_H

#define SRV_FORWARDED_METHODS(XX)                 \
    XX("session/dot", wk_m_dot, SRV_M_QUICK)      \
    XX("session/svg", wk_m_svg, 0)                \
    XX("session/modechange", wk_m_modechange, 0)  \
    XX("session/modechanges", wk_m_modechanges, 0) \
    XX("session/structure", wk_m_structure, 0)    \
    XX("debug/analyses", wk_m_analyses, SRV_M_DEBUG) \
    XX("debug/crash", wk_m_crash, SRV_M_DEBUG)    \
    XX("debug/alloc", wk_m_alloc, SRV_M_DEBUG)    \
    XX("debug/sleep", wk_m_sleep, SRV_M_DEBUG)    \
    XX("debug/frames", wk_m_frames, SRV_M_DEBUG)

#endif /* SRV_METHODS_H */
