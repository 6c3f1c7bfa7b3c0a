// The plugins of Octokit load Bottleneck's light build, which ships no types of its own: it has
// the main build's API.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck';
  export default Bottleneck;
}
