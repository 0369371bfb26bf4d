// A script's worker in a realm (web/realm/realm_python.mjs, web/realm/jsh_worker.mjs) is handed its port by
// the realm's frame (web/realm/frame.js) as its first RUN.port message, perhaps among messages
// that came while its module loaded (`queued`): `use(port)` is called once, with that port.

import { RUN } from "../shared/protocol.mjs";

export function takePort(scope, queued, use) {
  let taken = false;
  const take = ({ data, ports }) => {
    if (data?.type !== RUN.port || taken) return;
    taken = true;
    use(ports[0]);
  };
  scope.onmessage = take;
  for (const event of queued) take(event);
}
