// A request/answer channel over postMessage: each request gets an id, and the answer naming
// that id settles its promise. Used for the Python worker and for the report store.

// `send(message)` posts a request (the id added); the owner of the channel hands each answer
// to `settle`. The promise a call returns carries its id (`.id`), for requests that name an
// earlier one.
export function createRpc(send) {
  const pending = new Map();  // id -> {resolve, reject}
  const ids = { last: 0 };
  return {
    // `transfer`: ArrayBuffers moved to the other side, not copied (a chosen file's bytes).
    call(message, transfer) {
      const id = ++ids.last;
      const answer = new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        send({ ...message, id }, transfer);
      });
      answer.id = id;
      return answer;
    },
    // An answer for no pending request (already settled, or never asked) is ignored.
    settle(id, failure, value) {
      const request = pending.get(id);
      if (!request) return;
      pending.delete(id);
      if (failure) request.reject(new Error(failure));
      else request.resolve(value);
    },
    rejectAll(error) {
      for (const { reject } of pending.values()) reject(error);
      pending.clear();
    },
  };
}
