// The heartbeat's metronome (connection.js): a worker that posts a tick at the interval
// it is given. Browsers slow a hidden page's own timers to once a minute, not a
// worker's, so a player looking at another tab keeps their heartbeat.

let timer = null;
self.addEventListener('message', (event) => {
  const every = Number(event.data?.every);
  clearInterval(timer);
  timer = Number.isFinite(every) && every > 0 ? setInterval(() => self.postMessage('tick'), every) : null;
});
